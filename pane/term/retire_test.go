package term

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// A retired terminal reads as it did, lets go of vt10x until something
// needs it, and then goes on exactly as one never retired: after a resize
// either way and after more output.
func TestRetireIsInvisible(t *testing.T) {
	streams := fastStreams()
	for name, s := range benchStreams() {
		streams["bench-"+name] = string(s[:min(len(s), scaled(64<<10))])
	}
	streams["plain-lines"] = strings.Repeat("line of some text for the pane throughput benchmark, padded a little\n", 300)
	retired, refused := 0, 0
	for name, s := range streams {
		for _, sz := range [][2]int{{40, 10}, {200, 50}} {
			what := fmt.Sprintf("%s at %dx%d", name, sz[0], sz[1])
			a, b := New(sz[0], sz[1], Options{}), New(sz[0], sz[1], Options{})
			a.Write([]byte(s))
			b.Write([]byte(s))
			a.Trim()
			b.Trim()
			if !a.Retire() {
				refused++
				if testing.Verbose() {
					t.Logf("%s: not retired", what)
				}
				continue
			}
			retired++
			if !a.Retired() || a.frozen == nil {
				t.Fatalf("%s: Retire said yes and kept vt10x", what)
			}
			for _, read := range []struct {
				name string
				f    func(*Terminal) any
			}{
				{"Snapshot", func(tm *Terminal) any { return tm.Snapshot() }},
				{"Lines", func(tm *Terminal) any { return tm.Lines() }},
				{"History", func(tm *Terminal) any { return tm.History(-1) }},
				{"Cursor", func(tm *Terminal) any { return tm.Cursor() }},
				{"Modes", func(tm *Terminal) any { return tm.Modes() }},
				{"Size", func(tm *Terminal) any { c, r := tm.Size(); return [2]int{c, r} }},
			} {
				if ga, gb := read.f(a), read.f(b); !reflect.DeepEqual(ga, gb) {
					t.Fatalf("%s: %s of the retired terminal differs:\n%+v\nwant\n%+v", what, read.name, ga, gb)
				}
			}
			if !a.Retired() {
				t.Fatalf("%s: a read brought vt10x back", what)
			}
			// Trim and Retire again change nothing.
			a.Trim()
			if !a.Retire() || !a.Retired() {
				t.Fatalf("%s: retired twice, not retired", what)
			}
			for _, step := range []struct {
				what string
				do   func(*Terminal)
			}{
				{"a narrower resize", func(tm *Terminal) { tm.Resize(sz[0]-7, sz[1]-3) }},
				{"the first size again", func(tm *Terminal) { tm.Resize(sz[0], sz[1]) }},
				{"more output", func(tm *Terminal) {
					tm.Write([]byte("more\r\n\x1b[31mred\x1b[1m bold\x1b[0m and a line long enough to wrap at forty columns, past them\r\n\x1b[2Aup\x1b[K"))
				}},
			} {
				if step.what == "more output" {
					a.Retire() // so that the write thaws it, if it retires again
				}
				step.do(a)
				step.do(b)
				if a.Retired() {
					t.Fatalf("%s: still retired after %s", what, step.what)
				}
				if sa, sb := stateOf(a), stateOf(b); !reflect.DeepEqual(sa, sb) {
					t.Fatalf("%s, after %s: the thawed terminal differs:\n%s", what, step.what, stateDiff(sa, sb))
				}
			}
		}
	}
	t.Logf("%d retired, %d refused", retired, refused)
	if retired < refused || retired < 20 {
		t.Errorf("%d retired, %d refused: the streams' screens should mostly come back exactly", retired, refused)
	}
}

// A retired 200x50 screen of text holds a few kilobytes, not vt10x's two
// screens of 16-byte glyphs.
func TestRetiredScreenIsSmall(t *testing.T) {
	tm := New(200, 50, Options{})
	for i := range 2000 {
		fmt.Fprintf(tm, "line %d of some text for the pane throughput benchmark, padded a little\r\n", i)
	}
	tm.Write([]byte("\x1b[1;32mdone\x1b[0m $ "))
	if !tm.Retire() {
		t.Fatal("a screen of text was not retired")
	}
	size := 0
	for _, r := range tm.frozen.rows {
		size += len(r.text) + 12*len(r.runs) + 40
	}
	if size > 8<<10 {
		t.Errorf("the retired screen takes about %d bytes", size)
	}
	if got := tm.Lines()[49]; got != "done $" {
		t.Errorf("the last row reads %q", got)
	}
}
