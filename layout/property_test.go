package layout

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// checkTiling asserts the geometry rules for one tab in a w x h area: frames
// and vertical separators cover the area (or the tree's minimum, when the
// area is smaller) exactly once; each Content is its Frame minus the top row
// and at least 1x1; a Down border is the top row of the panes below it.
func checkTiling(t *testing.T, l *Layout, tab, w, h int) {
	t.Helper()
	if err := tilingError(l, tab, w, h); err != nil {
		t.Fatalf("tab %d at %dx%d: %v\nlayout: %s", tab, w, h, err, l.Dump())
	}
}

func tilingError(l *Layout, tab, w, h int) error {
	info := l.Tabs()[tab]
	ps := l.Place(tab, w, h)
	W, H := rootRect(l.tabs[tab].root, w, h).W, rootRect(l.tabs[tab].root, w, h).H
	if info.Zoomed {
		W, H = max(w, 1), max(h, 2)
		if len(ps) != 1 || ps[0].Pane != info.Focus {
			return fmt.Errorf("zoomed tab places %v, want only focus %d", ps, info.Focus)
		}
	} else {
		got := make([]int, len(ps))
		for i, p := range ps {
			got[i] = p.Pane
		}
		if !slices.Equal(got, info.Panes) {
			return fmt.Errorf("placed panes %v, tab holds %v", got, info.Panes)
		}
	}
	if w >= 1 && h >= 2 && (W > w || H > h) {
		if mw, mh := l.tabs[tab].root.minSize(1, 1); !info.Zoomed && w >= mw && h >= mh {
			return fmt.Errorf("laid out at %dx%d although the minimum %dx%d fits", W, H, mw, mh)
		}
	}
	grid := make([]int, W*H)
	owner := make([]int, W*H) // pane id, or -1 for a separator
	top := make(map[int]int)  // pane id -> frame's top row
	mark := func(r Rect, who int, what string) error {
		if r.W < 1 || r.H < 1 || r.X < 0 || r.Y < 0 || r.X+r.W > W || r.Y+r.H > H {
			return fmt.Errorf("%s %v is empty or outside %dx%d", what, r, W, H)
		}
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				grid[y*W+x]++
				owner[y*W+x] = who
			}
		}
		return nil
	}
	for _, p := range ps {
		if err := mark(p.Frame, p.Pane, fmt.Sprintf("pane %d frame", p.Pane)); err != nil {
			return err
		}
		top[p.Pane] = p.Frame.Y
		if p.Content != (Rect{p.Frame.X, p.Frame.Y + 1, p.Frame.W, p.Frame.H - 1}) || p.Content.W < 1 || p.Content.H < 1 {
			return fmt.Errorf("pane %d content %v, frame %v", p.Pane, p.Content, p.Frame)
		}
	}
	bs := l.Borders(tab, w, h)
	for _, b := range bs {
		if b.Split == Right {
			if err := mark(Rect{b.X, b.Y, 1, b.Len}, -1, "separator"); err != nil {
				return err
			}
		}
	}
	for _, b := range bs {
		if b.Split == Right {
			continue
		}
		if b.X < 0 || b.Y < 0 || b.X+b.Len > W || b.Y >= H {
			return fmt.Errorf("down border %+v outside %dx%d", b, W, H)
		}
		for x := b.X; x < b.X+b.Len; x++ {
			if o := owner[b.Y*W+x]; o != -1 && top[o] != b.Y {
				return fmt.Errorf("down border %+v at column %d is not a top border row", b, x)
			}
		}
	}
	for i, n := range grid {
		if n != 1 {
			return fmt.Errorf("cell %d,%d covered %d times", i%W, i/W, n)
		}
	}
	return nil
}

// TestRandomOperations runs random sequences of adds, removes, focus moves,
// zooms, drags, tab switches and window resizes, and checks after every step
// that every tab tiles its area, focus is valid, the layout survives a
// Dump/Parse round trip, and that every pane keeps the minimum size whenever
// the window is back at the size the layout was built at.
func TestRandomOperations(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 30
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		bigW, bigH := 40+r.IntN(200), 10+r.IntN(60)
		w, h := bigW, bigH
		l := New()
		ids := map[int]bool{}
		next := 1
		// Sizes only grow with the window, so every pane keeps the minimum
		// at any size at least as large as every size a split or a drag was
		// made at; a drag made while some pane was already under the
		// minimum promises nothing.
		buildW, buildH, tainted := 0, 0, false
		var log []string
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d after %v: "+format, append([]any{seed, log}, args...)...)
		}
		for op := range 150 {
			any := func() int {
				all := l.Panes()
				if len(all) == 0 {
					return 0
				}
				return all[r.IntN(len(all))]
			}
			switch k := r.IntN(20); {
			case k < 7:
				kinds := []string{"right", "down", "right", "down", "tab", "", "Down"}
				kind := kinds[r.IntN(len(kinds))]
				target := any()
				res, err := l.Add(target, next, kind, w, h)
				log = append(log, fmt.Sprintf("add(%d,%d,%s,%dx%d)=%s", target, next, kind, w, h, res.Used))
				if err != nil {
					fail("Add: %v", err)
				}
				if res.Used != Normalize(kind) && res.Note == "" {
					fail("Add used %s for %q without a note", res.Used, kind)
				}
				if res.Used != Tab {
					buildW, buildH = max(buildW, w), max(buildH, h)
				}
				ids[next] = true
				next++
			case k < 11:
				id := any()
				if id == 0 {
					continue
				}
				log = append(log, fmt.Sprintf("remove(%d)", id))
				if err := l.Remove(id); err != nil {
					fail("Remove: %v", err)
				}
				delete(ids, id)
			case k < 13:
				d := []Direction{Left, Right, Up, Down}[r.IntN(4)]
				log = append(log, fmt.Sprintf("move(%s)", d))
				l.MoveFocus(d, w, h)
			case k < 14:
				log = append(log, "zoom")
				l.ToggleZoom()
			case k < 15:
				if id := any(); id != 0 {
					log = append(log, fmt.Sprintf("focus(%d)", id))
					if err := l.Focus(id); err != nil {
						fail("Focus: %v", err)
					}
				}
			case k < 16:
				if len(l.tabs) > 0 {
					i := r.IntN(len(l.tabs))
					log = append(log, fmt.Sprintf("select(%d)", i))
					if err := l.SelectTab(i); err != nil {
						fail("SelectTab: %v", err)
					}
				}
			case k < 18:
				if bs := l.Borders(l.active, w, h); len(bs) > 0 {
					b := bs[r.IntN(len(bs))]
					to := b.Area.X + r.IntN(b.Area.W+1)
					if b.Split == Down {
						to = b.Area.Y + r.IntN(b.Area.H+1)
					}
					log = append(log, fmt.Sprintf("drag(%d,%d,%dx%d)", b.Node, to, w, h))
					under := false
					for _, p := range l.Place(l.active, w, h) {
						under = under || p.Content.W < MinCols || p.Content.H < MinRows
					}
					if l.DragBorder(l.active, b, to, w, h) {
						buildW, buildH = max(buildW, w), max(buildH, h)
						tainted = tainted || under
					}
				}
			default:
				if r.IntN(3) == 0 {
					w, h = bigW, bigH
				} else {
					w, h = r.IntN(bigW+20), r.IntN(bigH+10)
				}
				log = append(log, fmt.Sprintf("resize(%dx%d)", w, h))
			}
			if len(log) > 12 {
				log = log[len(log)-12:]
			}
			// Invariants.
			if l.Len() != len(ids) {
				fail("Len() = %d, want %d", l.Len(), len(ids))
			}
			got := l.Panes()
			for _, id := range got {
				if !ids[id] {
					fail("pane %d is in the layout but was removed", id)
				}
			}
			if len(l.tabs) == 0 {
				if l.Focused() != 0 || l.ActiveTab() != 0 {
					fail("empty layout focus %d active %d", l.Focused(), l.ActiveTab())
				}
			} else {
				if l.ActiveTab() < 0 || l.ActiveTab() >= len(l.tabs) {
					fail("active tab %d of %d", l.ActiveTab(), len(l.tabs))
				}
				if tab, ok := l.TabOf(l.Focused()); !ok || tab != l.ActiveTab() {
					fail("focused pane %d is not in the active tab", l.Focused())
				}
			}
			for tab, info := range l.Tabs() {
				// Every tab now and then, the active one (where the
				// operations land) always: the grid check is the slow part.
				if tab != l.ActiveTab() && op%10 != 0 {
					continue
				}
				if !slices.Contains(info.Panes, info.Focus) {
					fail("tab %d focus %d is not one of %v", tab, info.Focus, info.Panes)
				}
				if err := tilingError(l, tab, w, h); err != nil {
					fail("%v\n%s", err, l.Dump())
				}
				if w >= buildW && h >= buildH && !tainted && !info.Zoomed && len(info.Panes) > 1 {
					for _, p := range l.Place(tab, w, h) {
						if p.Content.W < MinCols || p.Content.H < MinRows {
							fail("pane %d content %v is under the minimum at %dx%d (built at %dx%d)\n%s", p.Pane, p.Content, w, h, buildW, buildH, l.Dump())
						}
					}
				}
			}
			if op%10 == 0 {
				p, err := Parse(l.Dump())
				if err != nil {
					fail("Parse(Dump()): %v\n%s", err, l.Dump())
				}
				if p.Dump() != l.Dump() || !reflect.DeepEqual(p.Tabs(), l.Tabs()) {
					fail("round trip changed %s into %s", l.Dump(), p.Dump())
				}
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"active=0",
		`active=0; tab "" focus=3 right(0.5 1 down(0.5 2 3)); tab "logs" focus=4 zoomed 4`,
		`active=1; tab "a" focus=1 1; tab "b" focus=2 down(0.25 2 right(0.75 3 4))`,
		`active=0; tab "\u00e9" focus=1 right(1e-3 1 2)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		d := l.Dump()
		p, err := Parse(d)
		if err != nil {
			t.Fatalf("Parse(%q) ok but its Dump %q fails: %v", s, d, err)
		}
		if p.Dump() != d {
			t.Fatalf("round trip %q -> %q", d, p.Dump())
		}
		for tab := range l.Tabs() {
			if err := tilingError(l, tab, 80, 23); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
	})
}

func BenchmarkPlace(b *testing.B) {
	l := New()
	kinds := []string{"right", "down"}
	for id := 1; id <= 16; id++ {
		if _, err := l.Add(max(id-1, 1), id, kinds[id%2], 400, 200); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		l.Place(l.ActiveTab(), 400, 200)
	}
}

func BenchmarkAddRemove(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		l := New()
		for id := 1; id <= 8; id++ {
			if _, err := l.Add(max(id-1, 1), id, "right", 400, 200); err != nil {
				b.Fatal(err)
			}
		}
		for id := 1; id <= 8; id++ {
			if err := l.Remove(id); err != nil {
				b.Fatal(err)
			}
		}
	}
}
