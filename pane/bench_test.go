package pane

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/melmux/melmux/bench/streams"
)

// BenchmarkFlood runs `cat` of 8 MB of each benchmark stream in a 200x50 pane
// through a real PTY, until the process has ended and the screen shows the
// stream's last line: the reader, its draining, and the emulator together,
// the in-process counterpart of bench/pane_throughput.sh.
func BenchmarkFlood(b *testing.B) {
	for _, kind := range streams.Kinds {
		data, err := streams.Generate(kind, 8<<20)
		if err != nil {
			b.Fatal(err)
		}
		file := filepath.Join(b.TempDir(), kind)
		if err := os.WriteFile(file, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				p, err := Start(Config{ID: 1, Argv: []string{"cat", file}, Env: os.Environ(), Cols: 200, Rows: 50})
				if err != nil {
					b.Fatal(err)
				}
				<-p.Exited()
				if !screenHas(p, streams.Last(kind)) {
					b.Fatalf("%s: the last line is not on the screen: %q", kind, p.Term().Lines())
				}
				p.Close()
			}
		})
	}
}
