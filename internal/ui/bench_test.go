package ui

import (
	"bytes"
	"io"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
	"github.com/melmux/melmux/pane/term"
)

// colourfulScreen fills a w x h screen with text whose colours change every
// few cells, mixing palette and truecolour, as a busy agent or ls --color does.
func colourfulScreen(w, h, seed int) *term.Screen {
	s := screenOf(w, h)
	const text = "the quick brown fox jumps over the lazy dog 0123456789 "
	for y := range s.Cells {
		for x := range s.Cells[y] {
			n := (x/7 + y + seed) % 6
			c := term.Cell{Rune: rune(text[(x+y*3+seed)%len(text)]), Width: 1}
			switch n {
			case 0:
				c.FG = term.Indexed(uint8(1 + (x+y)%7))
			case 1:
				c.FG, c.Attr = term.Indexed(uint8(16+(x*y)%216)), term.AttrBold
			case 2:
				c.FG, c.BG = term.RGB(uint8(x), uint8(y*4), 200), term.Indexed(236)
			case 3:
				c.Attr = term.AttrUnderline
			case 4:
				c.FG, c.Attr = term.Indexed(2), term.AttrItalic
			}
			s.Cells[y][x] = c
		}
	}
	return s
}

// fourPanes is a 200x50 scene with four panes (2x2) full of coloured text.
func fourPanes(seed int) *Scene {
	const cols, rows = 200, 50
	lw, rw := 100, 99 // left 0-99, separator at 100, right 101-199
	th, bh := 24, 25  // rows 0-23 and 24-48; the status line is row 49
	mk := func(id int, fr Rect) PaneView {
		c := Rect{fr.X, fr.Y + 1, fr.W, fr.H - 1}
		return PaneView{ID: id, Frame: fr, Content: c, Command: "agent", State: "busy", Focused: id == 1,
			Screen: colourfulScreen(c.W, c.H, id+seed)}
	}
	return &Scene{Cols: cols, Rows: rows, Session: "main",
		Tabs: []TabView{{Index: 0, Name: "agents", Panes: 4, Active: true}},
		Panes: []PaneView{mk(1, Rect{0, 0, lw, th}), mk(2, Rect{lw + 1, 0, rw, th}),
			mk(3, Rect{0, th, lw, bh}), mk(4, Rect{lw + 1, th, rw, bh})},
		Separators: []Rect{{lw, 0, 1, rows - 1}},
	}
}

// BenchmarkDraw200x50 draws a 200x50 client with four panes full of
// coloured text and shows it on a simulation screen. Frames alternate
// between two contents, so every cell changes every frame: the worst case.
func BenchmarkDraw200x50(b *testing.B) {
	s := newSim(b, 200, 50)
	frames := [2]*Scene{fourPanes(0), fourPanes(1)}
	b.ReportAllocs()
	cpu := startCPU()
	n := 0
	for b.Loop() {
		Draw(s, frames[n%2])
		n++
	}
	cpu.report(b, n)
}

// cpuClock measures the process's CPU time (user + system, all threads, so
// garbage collection is counted), which a loaded machine inflates far less
// than the wall-clock ns/op.
type cpuClock struct{ start time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{processCPU()} }

func (c cpuClock) report(b *testing.B, n int) {
	if n > 0 {
		b.ReportMetric(float64(processCPU()-c.start)/float64(n), "cpu-ns/op")
	}
}

// BenchmarkDrawUnchanged is the common case: a frame where little changed.
func BenchmarkDrawUnchanged200x50(b *testing.B) {
	const cols, rows = 200, 50
	s := newSim(b, cols, rows)
	p := PaneView{ID: 1, Frame: Rect{0, 0, cols, rows - 1}, Content: Rect{0, 1, cols, rows - 2}, Focused: true,
		Command: "bash", Screen: colourfulScreen(cols, rows-2, 0)}
	sc := &Scene{Cols: cols, Rows: rows, Session: "main", Panes: []PaneView{p}}
	b.ReportAllocs()
	cpu := startCPU()
	n := 0
	for b.Loop() {
		Draw(s, sc)
		n++
	}
	cpu.report(b, n)
}

// BenchmarkPainterOnePaneChanged200x50 is a client's frame as the server
// draws it: four panes, three of them quiet (their snapshots are the ones
// drawn last frame), one printing (a new snapshot each frame); without the
// simulation screen's Show, as BenchmarkDrawNoShow200x50.
func BenchmarkPainterOnePaneChanged200x50(b *testing.B) {
	s := noShow{newSim(b, 200, 50)}
	first := fourPanes(0)
	second := *first
	second.Panes = append([]PaneView(nil), first.Panes...)
	second.Panes[0].Screen = colourfulScreen(first.Panes[0].Content.W, first.Panes[0].Content.H, 7)
	frames := [2]*Scene{first, &second}
	var p Painter
	b.ReportAllocs()
	cpu := startCPU()
	n := 0
	for b.Loop() {
		p.Draw(s, frames[n%2])
		n++
	}
	cpu.report(b, n)
}

// noShow draws into the simulation buffer without the simulated terminal's
// per-cell work in Show, to isolate Draw's own cost.
type noShow struct{ tcell.SimulationScreen }

func (noShow) Show() {}

func BenchmarkDrawNoShow200x50(b *testing.B) {
	const cols, rows = 200, 50
	s := noShow{newSim(b, cols, rows)}
	sc := fourPanes(0)
	b.ReportAllocs()
	cpu := startCPU()
	n := 0
	for b.Loop() {
		Draw(s, sc)
		n++
	}
	cpu.report(b, n)
}

// discardTty is a tcell.Tty whose output is counted and dropped and whose
// input never arrives: the server's per-client screen without a client.
type discardTty struct {
	w, h     int
	written  int64
	keep     *bytes.Buffer // what was written, when a test reads it
	stop     chan struct{} // closed by Drain to wake the reader
	stopOnce sync.Once
}

func (t *discardTty) Start() error { return nil }
func (t *discardTty) Stop() error  { return nil }

// Drain wakes the reader, as tcell requires before Stop.
func (t *discardTty) Drain() error {
	t.stopOnce.Do(func() { close(t.stop) })
	return nil
}
func (t *discardTty) NotifyResize(func()) {}
func (t *discardTty) Close() error        { return nil }
func (t *discardTty) Read([]byte) (int, error) {
	<-t.stop
	return 0, io.EOF
}
func (t *discardTty) Write(p []byte) (int, error) {
	t.written += int64(len(p))
	if t.keep != nil {
		t.keep.Write(p)
	}
	return len(p), nil
}
func (t *discardTty) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: t.w, Height: t.h}, nil
}

// terminfoScreen is the screen the server really uses, tcell's terminfo
// screen for xterm-256color, w x h, writing to a discardTty that keeps
// what was written in keep when it is not nil.
func terminfoScreen(tb testing.TB, w, h int, keep *bytes.Buffer) (tcell.Screen, *discardTty) {
	tb.Helper()
	ti, err := terminfo.LookupTerminfo("xterm-256color")
	if err != nil {
		tb.Fatal(err)
	}
	tty := &discardTty{w: w, h: h, stop: make(chan struct{}), keep: keep}
	s, err := tcell.NewTerminfoScreenFromTtyTerminfo(tty, ti)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Init(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Fini)
	return s, tty
}

// BenchmarkDrawTerminfo200x50 is the worst case on the screen the server
// really uses: tcell's terminfo screen for xterm-256color, every cell
// changing each frame, including the escape sequences Show writes.
func BenchmarkDrawTerminfo200x50(b *testing.B) {
	s, tty := terminfoScreen(b, 200, 50, nil)
	frames := [2]*Scene{fourPanes(0), fourPanes(1)}
	Draw(s, frames[1])
	tty.written = 0
	b.ReportAllocs()
	cpu := startCPU()
	n := 0
	for b.Loop() {
		Draw(s, frames[n%2])
		n++
	}
	cpu.report(b, n)
	b.ReportMetric(float64(tty.written)/float64(n), "bytes/frame")
}

// BenchmarkDrawTyping200x50 is the everyday frame: four coloured panes, one
// of them echoing a keystroke (one cell and the cursor change).
func BenchmarkDrawTyping200x50(b *testing.B) {
	s := newSim(b, 200, 50)
	sc := fourPanes(0)
	row := sc.Panes[0].Screen.Cells[5]
	Draw(s, sc)
	b.ReportAllocs()
	cpu := startCPU()
	n := 0
	for b.Loop() {
		row[n%40].Rune = rune('a' + n%26)
		sc.Panes[0].Screen.Cursor.X = n % 40
		Draw(s, sc)
		n++
	}
	cpu.report(b, n)
}

// BenchmarkDrawEcho200x50 is a keystroke's echo as the server draws it: a
// Painter on the terminfo screen, the typed pane handed over as a new
// snapshot that differs from the last in one cell of one row, the other
// three panes unchanged.
func BenchmarkDrawEcho200x50(b *testing.B) {
	s, tty := terminfoScreen(b, 200, 50, nil)
	sc := fourPanes(0)
	c := sc.Panes[0].Content
	var snaps [2]*term.Screen
	for i := range snaps {
		snaps[i] = colourfulScreen(c.W, c.H, 0)
		snaps[i].Cells[5][3].Rune = rune('a' + i)
		snaps[i].Cursor.X = 4 + i
	}
	var pt Painter
	pt.Draw(s, sc)
	tty.written = 0
	b.ReportAllocs()
	cpu := startCPU()
	n := 0
	for b.Loop() {
		sc.Panes[0].Screen = snaps[n%2]
		pt.Draw(s, sc)
		n++
	}
	cpu.report(b, n)
	b.ReportMetric(float64(tty.written)/float64(n), "bytes/frame")
}
