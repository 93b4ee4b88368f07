package term

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/melmux/melmux/bench/corpus"
)

// TestFastPathOnRecordings feeds bench/corpus (programs' output as their
// terminal received it, and the generated shapes) through the fast and the
// plain path at each stream's size, whole, in 4 KB writes and in pieces of
// random size, with models of the screen starting often; they must not
// differ.
func TestFastPathOnRecordings(t *testing.T) {
	t.Parallel()
	all, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		raw, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		raw = raw[:min(len(raw), scaled(1<<20))]
		var fast, total uint64
		for _, cut := range []int{0, 4096, 300} {
			tw := newTwins(s.Cols, s.Rows)
			switch cut {
			case 0:
				tw.write(raw)
			case 4096:
				for p := raw; len(p) > 0; {
					n := min(cut, len(p))
					tw.write(p[:n])
					p = p[n:]
				}
			default:
				tw.writeCut(raw, rand.New(rand.NewSource(int64(len(raw)))), cut)
			}
			fast += tw.fast.fastBytes
			total += uint64(len(raw))
			tw.same(t, fmt.Sprintf("%s, pieces up to %d", s.Name, cut))
		}
		t.Logf("%s: the model took %d%% of the input", s.Name, fast*100/total)
	}
}
