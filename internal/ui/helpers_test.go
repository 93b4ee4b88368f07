package ui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// newSim returns an initialised simulation screen of cols x rows.
func newSim(t testing.TB, cols, rows int) tcell.SimulationScreen {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(cols, rows)
	t.Cleanup(s.Fini)
	return s
}

// screenOf builds a pane screen from lines of text; wide runes take two cells.
func screenOf(cols, rows int, lines ...string) *term.Screen {
	sc := &term.Screen{Cols: cols, Rows: rows, Cursor: term.Cursor{Visible: true}}
	sc.Cells = make([][]term.Cell, rows)
	for y := range sc.Cells {
		sc.Cells[y] = make([]term.Cell, cols)
		for x := range sc.Cells[y] {
			sc.Cells[y][x] = term.Cell{Rune: ' ', Width: 1}
		}
		if y < len(lines) {
			putText(sc.Cells[y], 0, lines[y], term.Cell{})
		}
	}
	return sc
}

// putText writes s into row from column x with the colours and attributes of tmpl.
func putText(row []term.Cell, x int, s string, tmpl term.Cell) int {
	for _, r := range s {
		w := widths.RuneWidth(r)
		if w == 0 && x > 0 {
			row[x-1].Comb += string(r)
			continue
		}
		if x+w > len(row) {
			break
		}
		c := tmpl
		c.Rune, c.Width = r, uint8(w)
		row[x] = c
		if w == 2 {
			cont := tmpl
			cont.Width = 0
			row[x+1] = cont
		}
		x += w
	}
	return x
}

// dump renders the simulation screen as text, one line per row with a
// trailing "|", then the cursor. With styles it adds a map: one letter per
// cell naming its style, and a legend.
func dump(s tcell.Screen, styles bool) string {
	cols, rows := s.Size()
	var b strings.Builder
	letters := map[tcell.Style]byte{}
	var legend []string
	var smap strings.Builder
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			str, st, w := s.Get(x, y)
			if str == "" {
				str = " "
			}
			b.WriteString(str)
			l, ok := letters[st]
			if !ok {
				l = byte('a' + len(letters))
				letters[st] = l
				legend = append(legend, fmt.Sprintf("%c: %s", l, describe(st)))
			}
			smap.WriteByte(l)
			if w == 2 {
				smap.WriteByte(l)
				x++
			}
		}
		b.WriteString("|\n")
		smap.WriteString("|\n")
	}
	if x, y, vis := s.(tcell.SimulationScreen).GetCursor(); vis {
		fmt.Fprintf(&b, "cursor %d,%d\n", x, y)
	} else {
		b.WriteString("cursor hidden\n")
	}
	if styles {
		b.WriteString("styles:\n")
		b.WriteString(smap.String())
		for _, l := range legend {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func describeColor(c tcell.Color) string {
	switch {
	case c == tcell.ColorDefault:
		return "-"
	case c.IsRGB():
		return fmt.Sprintf("#%06x", c.Hex())
	}
	return fmt.Sprint(int(c - tcell.ColorValid))
}

func describe(st tcell.Style) string {
	fg, bg, a := st.Decompose()
	out := "fg=" + describeColor(fg) + " bg=" + describeColor(bg)
	names := []struct {
		m tcell.AttrMask
		n string
	}{{tcell.AttrBold, "bold"}, {tcell.AttrDim, "dim"}, {tcell.AttrItalic, "italic"},
		{tcell.AttrBlink, "blink"}, {tcell.AttrReverse, "reverse"}, {tcell.AttrStrikeThrough, "strike"}}
	for _, n := range names {
		if a&n.m != 0 {
			out += " " + n.n
		}
	}
	if st.GetUnderlineStyle() != tcell.UnderlineStyleNone {
		out += " underline"
	}
	return out
}

// golden compares got with testdata/name.golden, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}
