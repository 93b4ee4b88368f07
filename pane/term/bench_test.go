package term

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hinshun/vt10x"

	"github.com/melmux/melmux/bench/streams"
)

// benchStreams builds about 1 MB of each stream of bench/streams (plain
// text, SGR-coloured words, a cursor-heavy redraw, an Ink-style agent UI,
// clears), with the "\r\n" line ends a PTY delivers. They are built once
// (a second under the race detector) and shared: no caller writes to them.
var benchStreams = sync.OnceValue(func() map[string][]byte {
	out := map[string][]byte{}
	for _, kind := range streams.Kinds {
		b, err := streams.Generate(kind, 1<<20)
		if err != nil {
			panic(err)
		}
		out[kind] = onlcr(b)
	}
	return out
})

// benchChunks are the write sizes measured: what one PTY read holds, and
// what the pane's reader hands the terminal at once under a flood, having
// drained what the PTY already held.
var benchChunks = []int{4 << 10, 64 << 10}

// feedBench writes data round and round in chunk-byte writes, b.N of them,
// and reports allocations per byte.
func feedBench(b *testing.B, chunk int, data []byte, write func([]byte)) {
	b.SetBytes(int64(chunk))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	off := 0
	for i := 0; i < b.N; i++ {
		if off+chunk > len(data) {
			off = 0
		}
		write(data[off : off+chunk])
		off += chunk
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*chunk), "allocs/B")
}

// BenchmarkWrite measures the input path (scanner + vt10x + history) on a
// 200x50 terminal. BenchmarkVT10x is stock vt10x on the same input, and the
// plain variants keep to the plain path (no fast paths), both measured in
// the same run for comparison.
func BenchmarkWrite(b *testing.B) {
	all := benchStreams()
	for _, name := range streams.Kinds {
		for _, chunk := range benchChunks {
			for _, plain := range []bool{false, true} {
				label := fmt.Sprintf("%s/%dK", name, chunk>>10)
				if plain {
					label += "/plain-path"
				}
				b.Run(label, func(b *testing.B) {
					tm := New(200, 50, Options{Reply: func([]byte) {}})
					tm.fastOff = plain
					feedBench(b, chunk, all[name], func(p []byte) { tm.Write(p) })
				})
			}
		}
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
	all := benchStreams()
	for _, name := range streams.Kinds {
		b.Run(name, func(b *testing.B) {
			vt := vt10x.New(vt10x.WithSize(200, 50))
			feedBench(b, 4<<10, all[name], func(p []byte) { _, _ = vt.Write(p) })
		})
	}
}

// BenchmarkResize measures one change of width of a 200x50 pane whose
// history is full (10,000 lines), alternating 200 and 160 columns. short:
// 100-character lines, which fit either width; wrapped: 300-character lines,
// each two rows at either width, which a reflow lays out anew every time;
// styled: the same with every word in its own colour; mixed: one line in
// four wrapped.
func BenchmarkResize(b *testing.B) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 7)[:300]
	var styled strings.Builder
	for i, w := range strings.Fields(long) {
		fmt.Fprintf(&styled, "\x1b[38;5;%dm%s\x1b[m ", i%256, w)
	}
	for _, c := range []struct {
		name string
		line func(i int) string
	}{
		{"short", func(i int) string { return fmt.Sprintf("%09d %s", i, long[:90]) }},
		{"wrapped", func(i int) string { return fmt.Sprintf("%09d %s", i, long[:290]) }},
		{"styled", func(i int) string { return fmt.Sprintf("%09d %s", i, styled.String()) }},
		{"mixed", func(i int) string {
			if i%4 == 0 {
				return fmt.Sprintf("%09d %s", i, long[:290])
			}
			return fmt.Sprintf("%09d %s", i, long[:60])
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			tm := New(200, 50, Options{})
			var in strings.Builder
			for i := 0; tm.HistoryLen() < DefaultScrollback; i++ {
				in.Reset()
				for k := range 500 {
					in.WriteString(c.line(i*500 + k))
					in.WriteString("\r\n")
				}
				tm.Write([]byte(in.String()))
			}
			tm.Write([]byte("$ "))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tm.Resize(200-40*(1-i%2), 50)
			}
		})
	}
}

// BenchmarkFrozenHistory fills a 200x50 pane's history (10,000 lines) with
// the plain lines of bench/pane_throughput.sh or with SGR-coloured words,
// and reports what the pane holds on the heap beyond an empty one once
// trimmed (its history frozen), as bytes a line; each iteration then reads its oldest line, which thaws it
// all, and trims again: the cost of a first look at a quiet pane's history.
func BenchmarkFrozenHistory(b *testing.B) {
	for _, kind := range []string{"plain", "sgr"} {
		b.Run(kind, func(b *testing.B) {
			var in []byte
			if kind == "sgr" {
				in = benchStreams()["sgr"]
			} else {
				var s strings.Builder
				for i := 1; s.Len() < 1<<20; i++ {
					fmt.Fprintf(&s, "line %d of some text for the pane throughput benchmark, padded a little\r\n", i)
				}
				in = []byte(s.String())
			}
			heap := func() uint64 {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				return m.HeapAlloc
			}
			tm := New(200, 50, Options{})
			h0 := heap()
			for tm.HistoryLen() < DefaultScrollback {
				tm.Write(in)
			}
			tm.Trim()
			held := int64(heap()) - int64(h0)
			runtime.KeepAlive(in) // in h0 too
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tm.HistoryCells(0, 1)
				tm.Trim()
			}
			b.StopTimer()
			b.ReportMetric(float64(held)/float64(tm.HistoryLen()), "heap-B/line")
			runtime.KeepAlive(tm)
		})
	}
}
