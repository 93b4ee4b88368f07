package corpus

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// TestCorpus keeps the corpus what its users assume: every recording named
// with its size, readable, not empty and described; the shapes the same
// bytes on every call (a benchmark compares runs of them); the fixtures
// small enough to keep in the repository.
func TestCorpus(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	recorded, packed := 0, 0
	for _, s := range all {
		if seen[s.Name] {
			t.Errorf("%s twice", s.Name)
		}
		seen[s.Name] = true
		if s.Cols < 20 || s.Rows < 5 || !strings.HasSuffix(s.Name, fmt.Sprintf("_%dx%d", s.Cols, s.Rows)) {
			t.Errorf("%s: size %dx%d", s.Name, s.Cols, s.Rows)
		}
		if s.About == "" {
			t.Errorf("%s says nothing of what it is (corpus.go's about)", s.Name)
		}
		b, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 4000 {
			t.Errorf("%s: %d bytes", s.Name, len(b))
		}
		if s.Recorded {
			recorded++
			continue
		}
		again, _ := s.Bytes()
		if !bytes.Equal(b, again) {
			t.Errorf("%s: two calls gave different bytes", s.Name)
		}
	}
	if recorded < 20 || len(all)-recorded != len(shapes) {
		t.Errorf("%d recordings and %d shapes, want at least 20 and %d", recorded, len(all)-recorded, len(shapes))
	}
	fs.WalkDir(data, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			packed += int(fi.Size())
		}
		return err
	})
	if packed > 30<<20 {
		t.Errorf("the recordings take %d bytes gzipped; keep the corpus under 30 MB", packed)
	}
}
