package term

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/hinshun/vt10x"
)

// benchStreams builds about 1 MB of each kind of output: plain text lines,
// SGR-coloured words (16, 256 and truecolour), and a cursor-heavy redraw
// (cursor addressing, erase, short text), the shape of top or an ink UI.
func benchStreams() map[string][]byte {
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("the quick brown fox jumps over a lazy dog while agents write code and tests run in panes of a terminal multiplexer")
	const size = 1 << 20
	var plain, sgr, cursor strings.Builder
	for plain.Len() < size {
		n := 40 + rng.Intn(120)
		line := 0
		for line < n {
			w := words[rng.Intn(len(words))]
			plain.WriteString(w)
			plain.WriteByte(' ')
			line += len(w) + 1
		}
		plain.WriteString("\r\n")
	}
	for sgr.Len() < size {
		for i := 0; i < 12; i++ {
			w := words[rng.Intn(len(words))]
			switch rng.Intn(4) {
			case 0:
				fmt.Fprintf(&sgr, "\x1b[%d;1m%s\x1b[0m ", 30+rng.Intn(8), w)
			case 1:
				fmt.Fprintf(&sgr, "\x1b[38;5;%dm%s\x1b[39m ", rng.Intn(256), w)
			case 2:
				fmt.Fprintf(&sgr, "\x1b[38;2;%d;%d;%dm%s\x1b[0m ", rng.Intn(256), rng.Intn(256), rng.Intn(256), w)
			default:
				fmt.Fprintf(&sgr, "\x1b[48;5;%d;4m%s\x1b[m ", rng.Intn(256), w)
			}
		}
		sgr.WriteString("\r\n")
	}
	for cursor.Len() < size {
		fmt.Fprintf(&cursor, "\x1b[%d;%dH\x1b[K%5d %-10s %5.1f", 1+rng.Intn(50), 1+rng.Intn(150), rng.Intn(99999), words[rng.Intn(len(words))], rng.Float64()*100)
		if rng.Intn(10) == 0 {
			cursor.WriteString("\x1b[H\x1b[2K\x1b[7m top - load average \x1b[0m\x1b[3A\x1b[2K")
		}
	}
	return map[string][]byte{"plain": []byte(plain.String()), "sgr": []byte(sgr.String()), "cursor": []byte(cursor.String())}
}

// BenchmarkWrite measures the input path (scanner + vt10x + history) on a
// 200x50 terminal in 4 KB writes. For reference, stock vt10x alone runs at
// about 19 MB/s plain on this machine (research/vt10x.md).
func BenchmarkWrite(b *testing.B) {
	streams := benchStreams()
	for _, name := range []string{"plain", "sgr", "cursor"} {
		data := streams[name]
		b.Run(name, func(b *testing.B) {
			tm := New(200, 50, Options{Reply: func([]byte) {}})
			const chunk = 4096
			b.SetBytes(chunk)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			off := 0
			for i := 0; i < b.N; i++ {
				if off+chunk > len(data) {
					off = 0
				}
				tm.Write(data[off : off+chunk])
				off += chunk
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*chunk), "allocs/B")
		})
	}
}

// BenchmarkSnapshot measures copying a full 200x50 screen.
func BenchmarkSnapshot(b *testing.B) {
	tm := New(200, 50, Options{})
	tm.Write(benchStreams()["sgr"][:200000])
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = tm.Snapshot()
	}
}

// BenchmarkLines measures reading a 200x50 screen as text.
func BenchmarkLines(b *testing.B) {
	tm := New(200, 50, Options{})
	tm.Write(benchStreams()["plain"][:200000])
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = tm.Lines()
	}
}

// BenchmarkVT10x feeds the same streams to stock vt10x alone, the baseline
// the input path is compared with in the same run.
func BenchmarkVT10x(b *testing.B) {
	streams := benchStreams()
	for _, name := range []string{"plain", "sgr", "cursor"} {
		data := streams[name]
		b.Run(name, func(b *testing.B) {
			vt := vt10x.New(vt10x.WithSize(200, 50))
			const chunk = 4096
			b.SetBytes(chunk)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			off := 0
			for i := 0; i < b.N; i++ {
				if off+chunk > len(data) {
					off = 0
				}
				_, _ = vt.Write(data[off : off+chunk])
				off += chunk
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*chunk), "allocs/B")
		})
	}
}
