package layout

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Kind
	}{
		{"right", Right}, {"down", Down}, {"tab", Tab},
		{"", Tab}, {"Right", Tab}, {"DOWN", Tab}, {"left", Tab}, {"up", Tab},
		{" right", Tab}, {"right ", Tab}, {"vertical", Tab}, {"tabs", Tab},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// build adds panes 1..n with the given layouts, each splitting the pane
// named in targets (0 for the first pane).
func build(t *testing.T, w, h int, steps ...step) *Layout {
	t.Helper()
	l := New()
	for _, s := range steps {
		r, err := l.Add(s.target, s.id, s.kind, w, h)
		if err != nil {
			t.Fatalf("Add(%d, %d, %q): %v", s.target, s.id, s.kind, err)
		}
		if s.kind != "" && r.Used != Normalize(s.kind) && len(l.tabs) > 1 {
			t.Fatalf("Add(%d, %d, %q) used %s: %s", s.target, s.id, s.kind, r.Used, r.Note)
		}
	}
	return l
}

type step struct {
	target, id int
	kind       string
}

func frames(ps []Placement) map[int]Rect {
	m := make(map[int]Rect)
	for _, p := range ps {
		m[p.Pane] = p.Frame
	}
	return m
}

func TestAddGeometry(t *testing.T) {
	l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"}, step{1, 4, "down"})
	want := map[int]Rect{
		1: {0, 0, 40, 12},
		4: {0, 12, 40, 11},
		2: {41, 0, 39, 12},
		3: {41, 12, 39, 11},
	}
	ps := l.Place(0, 80, 23)
	if got := frames(ps); !reflect.DeepEqual(got, want) {
		t.Fatalf("frames = %v, want %v", got, want)
	}
	for _, p := range ps {
		if p.Content != (Rect{p.Frame.X, p.Frame.Y + 1, p.Frame.W, p.Frame.H - 1}) {
			t.Errorf("pane %d content %v is not its frame %v minus the top row", p.Pane, p.Content, p.Frame)
		}
	}
	if got := l.Panes(); !reflect.DeepEqual(got, []int{1, 4, 2, 3}) {
		t.Errorf("Panes() = %v, want tree order [1 4 2 3]", got)
	}
	if l.Focused() != 4 || l.Len() != 4 {
		t.Errorf("Focused() = %d, Len() = %d; want 4, 4", l.Focused(), l.Len())
	}
	checkTiling(t, l, 0, 80, 23)
}

func TestAddSameDirectionNests(t *testing.T) {
	// Splitting the right half again halves it: 1 keeps its half.
	l := build(t, 200, 49, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "right"})
	want := map[int]Rect{1: {0, 0, 100, 49}, 2: {101, 0, 49, 49}, 3: {151, 0, 49, 49}}
	if got := frames(l.Place(0, 200, 49)); !reflect.DeepEqual(got, want) {
		t.Fatalf("frames = %v, want %v", got, want)
	}
	if got := l.Dump(); got != `active=0; tab "" focus=3 right(0.5 1 right(0.5 2 3))` {
		t.Errorf("Dump() = %s", got)
	}
}

func TestAddResults(t *testing.T) {
	for _, c := range []struct {
		name      string
		steps     []step // before the add under test
		target    int
		requested string
		w, h      int
		used      Kind
		tab       int
		note      string // substring; "" means the note must be empty
	}{
		{"first pane ignores target", nil, 99, "tab", 80, 23, Tab, 0, ""},
		{"first pane right", nil, 0, "right", 80, 23, Tab, 0, "no pane to split right; opened the first tab"},
		{"right", []step{{0, 1, "tab"}}, 1, "right", 80, 23, Right, 0, ""},
		{"down", []step{{0, 1, "tab"}}, 1, "down", 80, 23, Down, 0, ""},
		{"tab", []step{{0, 1, "tab"}}, 1, "tab", 80, 23, Tab, 1, ""},
		{"empty is tab", []step{{0, 1, "tab"}}, 1, "", 80, 23, Tab, 1, "no layout given; used tab"},
		{"wrong case is tab", []step{{0, 1, "tab"}}, 1, "Right", 80, 23, Tab, 1, `unknown layout "Right" (allowed: right, down, tab); used tab`},
		{"left is tab", []step{{0, 1, "tab"}}, 1, "left", 80, 23, Tab, 1, `unknown layout "left"`},
		{"right too narrow", []step{{0, 1, "tab"}}, 1, "right", 32, 23, Tab, 1,
			"right split of pane 1 would leave the new pane 2 15 columns wide, narrower than the minimum 16; opened a tab instead"},
		{"right just wide enough", []step{{0, 1, "tab"}}, 1, "right", 33, 23, Right, 0, ""},
		{"down too low", []step{{0, 1, "tab"}}, 1, "down", 80, 9, Tab, 1,
			"down split of pane 1 would leave the new pane 2 3 rows high, lower than the minimum 4; opened a tab instead"},
		{"down just high enough", []step{{0, 1, "tab"}}, 1, "down", 80, 10, Down, 0, ""},
		{"down keeps a too narrow width", []step{{0, 1, "tab"}}, 1, "down", 15, 40, Tab, 1,
			"down split of pane 1 would leave pane 1 15 columns wide"},
		{"nested split too narrow", []step{{0, 1, "tab"}, {1, 2, "right"}}, 2, "right", 60, 23, Tab, 1,
			"right split of pane 2 would leave pane 2 14 columns wide, narrower than the minimum 16"},
		{"nested split wide enough", []step{{0, 1, "tab"}, {1, 2, "right"}}, 2, "right", 80, 23, Right, 0, ""},
		{"second tab active", []step{{0, 1, "tab"}, {1, 2, "tab"}, {1, 3, "right"}}, 3, "down", 80, 23, Down, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := build(t, c.w, c.h, c.steps...)
			id := len(c.steps) + 1
			r, err := l.Add(c.target, id, c.requested, c.w, c.h)
			if err != nil {
				t.Fatal(err)
			}
			if r.Used != c.used || r.Tab != c.tab {
				t.Errorf("Used, Tab = %s, %d; want %s, %d (note %q)", r.Used, r.Tab, c.used, c.tab, r.Note)
			}
			if c.note == "" && r.Note != "" || !strings.Contains(r.Note, c.note) {
				t.Errorf("Note = %q, want %q", r.Note, c.note)
			}
			if l.Focused() != id || l.ActiveTab() != r.Tab {
				t.Errorf("Focused, ActiveTab = %d, %d; want the new pane %d in tab %d", l.Focused(), l.ActiveTab(), id, r.Tab)
			}
			if r.Used == Tab {
				if ps := l.Place(r.Tab, c.w, c.h); len(ps) != 1 || ps[0].Frame != (Rect{0, 0, c.w, c.h}) {
					t.Errorf("new tab placement = %v, want the whole %dx%d area", ps, c.w, c.h)
				}
			}
			checkTiling(t, l, r.Tab, c.w, c.h)
		})
	}
}

func TestAddErrors(t *testing.T) {
	l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 3, "right"})
	for _, c := range []struct {
		target, id int
		is         error
		msg        string
	}{
		{9, 4, ErrNoSuchPane, "pane 9 does not exist (panes: 1, 3)"},
		{1, 3, ErrDuplicatePane, "pane 3 already exists (panes: 1, 3)"},
		{1, 0, ErrBadPaneID, "pane id 0 must be a positive integer"},
		{1, -2, ErrBadPaneID, "pane id -2 must be a positive integer"},
	} {
		_, err := l.Add(c.target, c.id, "right", 80, 23)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Add(%d, %d) error = %v, want %v containing %q", c.target, c.id, err, c.is, c.msg)
		}
	}
	if l.Len() != 2 || l.Focused() != 3 {
		t.Errorf("a failed Add changed the layout: %s", l.Dump())
	}
	if _, err := New().Add(0, 0, "tab", 80, 23); !errors.Is(err, ErrBadPaneID) {
		t.Errorf("first pane with id 0: error = %v, want ErrBadPaneID", err)
	}
}

func TestRemove(t *testing.T) {
	// 1 | (2 / 3), then tab 4.
	mk := func() *Layout {
		return build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"}, step{3, 4, "tab"})
	}
	for _, c := range []struct {
		name    string
		focus   []int // Focus calls before the removal
		remove  int
		dump    string
		focused int
	}{
		{"collapse a nested split", []int{3}, 3, `active=0; tab "" focus=2 right(0.5 1 2); tab "" focus=4 4`, 2},
		{"sibling subtree takes the space", []int{2}, 1, `active=0; tab "" focus=2 down(0.5 2 3); tab "" focus=4 4`, 2},
		{"focus goes back to the previous pane", []int{1, 3}, 3, `active=0; tab "" focus=1 right(0.5 1 2); tab "" focus=4 4`, 1},
		{"unfocused pane", []int{1}, 2, `active=0; tab "" focus=1 right(0.5 1 3); tab "" focus=4 4`, 1},
		{"last tab's only pane", nil, 4, `active=0; tab "" focus=3 right(0.5 1 down(0.5 2 3))`, 3},
		{"a tab before the active one", []int{4}, 0, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := mk()
			for _, id := range c.focus {
				if err := l.Focus(id); err != nil {
					t.Fatal(err)
				}
			}
			if c.remove == 0 {
				// Empty tab 0 entirely while tab 1 is active.
				for _, id := range []int{1, 2, 3} {
					if err := l.Remove(id); err != nil {
						t.Fatal(err)
					}
				}
				if got := l.Dump(); got != `active=0; tab "" focus=4 4` || l.Focused() != 4 {
					t.Errorf("Dump() = %s, Focused() = %d", got, l.Focused())
				}
				return
			}
			if err := l.Remove(c.remove); err != nil {
				t.Fatal(err)
			}
			if got := l.Dump(); got != c.dump {
				t.Errorf("Dump() = %s\nwant      %s", got, c.dump)
			}
			if l.Focused() != c.focused {
				t.Errorf("Focused() = %d, want %d", l.Focused(), c.focused)
			}
			checkTiling(t, l, 0, 80, 23)
		})
	}
	t.Run("space given back", func(t *testing.T) {
		l := mk()
		if err := l.Remove(2); err != nil {
			t.Fatal(err)
		}
		want := map[int]Rect{1: {0, 0, 40, 23}, 3: {41, 0, 39, 23}}
		if got := frames(l.Place(0, 80, 23)); !reflect.DeepEqual(got, want) {
			t.Errorf("frames = %v, want %v", got, want)
		}
	})
	t.Run("errors and emptying", func(t *testing.T) {
		l := mk()
		if err := l.Remove(7); !errors.Is(err, ErrNoSuchPane) || !strings.Contains(err.Error(), "pane 7 does not exist (panes: 1, 2, 3, 4)") {
			t.Errorf("Remove(7) = %v", err)
		}
		for _, id := range []int{4, 1, 2, 3} {
			if err := l.Remove(id); err != nil {
				t.Fatal(err)
			}
		}
		if l.Len() != 0 || l.Focused() != 0 || l.ActiveTab() != 0 || len(l.Tabs()) != 0 || l.Dump() != "active=0" {
			t.Errorf("emptied layout: Len %d Focused %d Active %d Dump %s", l.Len(), l.Focused(), l.ActiveTab(), l.Dump())
		}
		if err := l.Remove(1); !errors.Is(err, ErrNoSuchPane) || !strings.Contains(err.Error(), "(panes: none)") {
			t.Errorf("Remove on empty layout = %v", err)
		}
		if _, err := l.Add(0, 9, "down", 80, 23); err != nil || l.Focused() != 9 {
			t.Errorf("re-adding to an emptied layout: %v, focus %d", err, l.Focused())
		}
	})
	t.Run("removing the active last tab selects the previous", func(t *testing.T) {
		l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "tab"}, step{1, 3, "tab"})
		if err := l.Remove(3); err != nil {
			t.Fatal(err)
		}
		if l.ActiveTab() != 1 || l.Focused() != 2 {
			t.Errorf("ActiveTab, Focused = %d, %d; want 1, 2", l.ActiveTab(), l.Focused())
		}
		if err := l.SelectTab(0); err != nil {
			t.Fatal(err)
		}
		if err := l.Remove(2); err != nil {
			t.Fatal(err)
		}
		if l.ActiveTab() != 0 || l.Focused() != 1 {
			t.Errorf("ActiveTab, Focused = %d, %d; want 0, 1", l.ActiveTab(), l.Focused())
		}
	})
}

func TestTabs(t *testing.T) {
	l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{1, 3, "tab"}, step{3, 4, "tab"})
	want := []TabInfo{
		{Index: 0, Panes: []int{1, 2}, Focus: 2},
		{Index: 1, Panes: []int{3}, Focus: 3},
		{Index: 2, Panes: []int{4}, Focus: 4},
	}
	if got := l.Tabs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tabs() = %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		op     func() error
		active int
	}{
		{func() error { l.NextTab(); return nil }, 0},
		{func() error { l.NextTab(); return nil }, 1},
		{func() error { l.PrevTab(); return nil }, 0},
		{func() error { l.PrevTab(); return nil }, 2},
		{func() error { return l.SelectTab(1) }, 1},
		{func() error { return l.Focus(2) }, 0},
	} {
		if err := c.op(); err != nil {
			t.Fatal(err)
		}
		if l.ActiveTab() != c.active {
			t.Fatalf("ActiveTab() = %d, want %d", l.ActiveTab(), c.active)
		}
	}
	if tab, ok := l.TabOf(4); !ok || tab != 2 {
		t.Errorf("TabOf(4) = %d, %v", tab, ok)
	}
	if _, ok := l.TabOf(5); ok {
		t.Errorf("TabOf(5) found a tab")
	}
	for _, i := range []int{-1, 3} {
		if err := l.SelectTab(i); !errors.Is(err, ErrNoSuchTab) || !strings.Contains(err.Error(), "(tabs: 0-2)") {
			t.Errorf("SelectTab(%d) = %v", i, err)
		}
	}
	if err := New().SelectTab(0); !errors.Is(err, ErrNoSuchTab) || !strings.Contains(err.Error(), "there are no tabs") {
		t.Errorf("SelectTab on empty layout = %v", err)
	}
	if err := l.Focus(8); !errors.Is(err, ErrNoSuchPane) {
		t.Errorf("Focus(8) = %v", err)
	}
	if err := l.SetTabName(1, "build ✓"); err != nil {
		t.Fatal(err)
	}
	if l.Tabs()[1].Name != "build ✓" {
		t.Errorf("name not set: %+v", l.Tabs()[1])
	}
	for _, c := range []struct {
		i    int
		name string
		is   error
	}{
		{5, "x", ErrNoSuchTab},
		{0, "a\nb", ErrBadTabName},
		{0, "\x1b[31m", ErrBadTabName},
		{0, "bad\xffutf8", ErrBadTabName},
		{0, strings.Repeat("n", MaxTabName+1), ErrBadTabName},
	} {
		if err := l.SetTabName(c.i, c.name); !errors.Is(err, c.is) {
			t.Errorf("SetTabName(%d, %q) = %v, want %v", c.i, c.name, err, c.is)
		}
	}
	if err := l.SetTabName(0, strings.Repeat("é", MaxTabName)); err != nil {
		t.Errorf("a %d-rune name: %v", MaxTabName, err)
	}
	var empty Layout
	empty.NextTab()
	empty.PrevTab()
	empty.ToggleZoom()
	if empty.Focused() != 0 || empty.Place(0, 80, 23) != nil || empty.MoveFocus(Left, 80, 23) {
		t.Errorf("empty layout answered for a pane")
	}
}

func TestMoveFocus(t *testing.T) {
	// 200x49:  1 | 2 | 3 over 4, with 5 below the whole of 1.
	//   +----+----+----+
	//   | 1  | 2  | 3  |
	//   +----+    +----+
	//   | 5  |    | 4  |
	//   +----+----+----+
	mk := func() *Layout {
		return build(t, 200, 49, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "right"}, step{3, 4, "down"}, step{1, 5, "down"})
	}
	for _, c := range []struct {
		name  string
		focus []int
		d     Direction
		want  int
		moved bool
	}{
		{"right to the neighbour", []int{1}, Right, 2, true},
		{"left to the only neighbour", []int{3}, Left, 2, true},
		{"down", []int{1}, Down, 5, true},
		{"up", []int{4}, Up, 3, true},
		{"most recent of two neighbours", []int{5, 2}, Left, 5, true},
		{"most recent of two neighbours, other", []int{1, 2}, Left, 1, true},
		{"right from 2 prefers recent 4", []int{4, 2}, Right, 4, true},
		{"wrap right to the left edge", []int{3}, Right, 1, true},
		{"wrap left to the right edge", []int{5}, Left, 4, true},
		{"wrap down to the top", []int{4}, Down, 3, true},
		{"wrap up to the bottom", []int{2}, Up, 2, false},
		{"not a direction", []int{1}, Tab, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := mk()
			for _, id := range c.focus {
				if err := l.Focus(id); err != nil {
					t.Fatal(err)
				}
			}
			moved := l.MoveFocus(c.d, 200, 49)
			if moved != c.moved || l.Focused() != c.want {
				t.Errorf("MoveFocus(%s) = %v, focus %d; want %v, %d", c.d, moved, l.Focused(), c.moved, c.want)
			}
		})
	}
	single := build(t, 80, 23, step{0, 1, "tab"})
	for _, d := range []Direction{Left, Right, Up, Down} {
		if single.MoveFocus(d, 80, 23) {
			t.Errorf("MoveFocus(%s) moved in a one-pane tab", d)
		}
	}
}

func TestZoom(t *testing.T) {
	l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"})
	l.ToggleZoom()
	if !l.Tabs()[0].Zoomed {
		t.Fatal("ToggleZoom did not zoom")
	}
	if ps := l.Place(0, 80, 23); len(ps) != 1 || ps[0].Pane != 3 || ps[0].Frame != (Rect{0, 0, 80, 23}) || ps[0].Content != (Rect{0, 1, 80, 22}) {
		t.Errorf("zoomed Place = %+v, want pane 3 over the whole area", ps)
	}
	if len(l.Borders(0, 80, 23)) != 0 {
		t.Errorf("a zoomed tab has borders")
	}
	if !strings.Contains(l.Dump(), "focus=3 zoomed right(") {
		t.Errorf("Dump() = %s, want the zoom recorded", l.Dump())
	}
	l.ToggleZoom()
	if l.Tabs()[0].Zoomed || len(l.Place(0, 80, 23)) != 3 {
		t.Errorf("second ToggleZoom did not unzoom")
	}
	for _, c := range []struct {
		name string
		op   func()
	}{
		{"focus another pane", func() { _ = l.Focus(1) }},
		{"move focus", func() { l.MoveFocus(Left, 80, 23) }},
		{"split", func() { _, _ = l.Add(l.Focused(), 10+l.Len(), "down", 80, 23) }},
		{"remove the zoomed pane", func() { _ = l.Remove(l.Focused()) }},
	} {
		l.ToggleZoom()
		if !l.Tabs()[0].Zoomed {
			t.Fatalf("%s: not zoomed before", c.name)
		}
		c.op()
		if l.Tabs()[0].Zoomed {
			t.Errorf("%s left the tab zoomed", c.name)
		}
		checkTiling(t, l, 0, 80, 23)
	}
	l.ToggleZoom()
	if err := l.Focus(l.Focused()); err != nil || !l.Tabs()[0].Zoomed {
		t.Errorf("focusing the zoomed pane itself unzoomed the tab")
	}
	one := build(t, 80, 23, step{0, 1, "tab"})
	one.ToggleZoom()
	if one.Tabs()[0].Zoomed {
		t.Errorf("a one-pane tab zoomed")
	}
}

func TestBordersAndPaneAt(t *testing.T) {
	l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"})
	want := []Border{
		{Split: Right, X: 40, Y: 0, Len: 23, Node: 0, Area: Rect{0, 0, 80, 23}},
		{Split: Down, X: 41, Y: 12, Len: 39, Node: 2, Area: Rect{41, 0, 39, 23}},
	}
	if got := l.Borders(0, 80, 23); !reflect.DeepEqual(got, want) {
		t.Fatalf("Borders() = %+v\nwant %+v", got, want)
	}
	for _, c := range []struct {
		x, y   int
		pane   int
		border int // index into want, -1 for none
	}{
		{0, 0, 1, -1}, {39, 22, 1, -1}, {40, 5, 0, 0}, {41, 0, 2, -1},
		{41, 12, 3, 1}, {79, 12, 3, 1}, {79, 22, 3, -1}, {80, 0, 0, -1}, {-1, 0, 0, -1},
	} {
		p, ok := l.PaneAt(0, c.x, c.y, 80, 23)
		if p != c.pane || ok != (c.pane != 0) {
			t.Errorf("PaneAt(%d, %d) = %d, %v; want %d", c.x, c.y, p, ok, c.pane)
		}
		b, ok := l.BorderAt(0, c.x, c.y, 80, 23)
		if c.border < 0 && ok || c.border >= 0 && (!ok || b != want[c.border]) {
			t.Errorf("BorderAt(%d, %d) = %+v, %v; want index %d", c.x, c.y, b, ok, c.border)
		}
	}
	if l.Borders(5, 80, 23) != nil || l.Place(-1, 80, 23) != nil {
		t.Errorf("a missing tab has borders or placements")
	}
}

func TestDragBorder(t *testing.T) {
	mk := func() (*Layout, []Border) {
		l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"})
		return l, l.Borders(0, 80, 23)
	}
	for _, c := range []struct {
		name   string
		border int
		to     int
		moved  bool
		want   map[int]Rect
	}{
		{"vertical left", 0, 30, true, map[int]Rect{1: {0, 0, 30, 23}, 2: {31, 0, 49, 12}, 3: {31, 12, 49, 11}}},
		{"vertical right", 0, 50, true, map[int]Rect{1: {0, 0, 50, 23}, 2: {51, 0, 29, 12}, 3: {51, 12, 29, 11}}},
		{"vertical clamped at the minimum width", 0, 2, true, map[int]Rect{1: {0, 0, 16, 23}, 2: {17, 0, 63, 12}, 3: {17, 12, 63, 11}}},
		{"vertical clamped on the right", 0, 79, true, map[int]Rect{1: {0, 0, 63, 23}, 2: {64, 0, 16, 12}, 3: {64, 12, 16, 11}}},
		{"horizontal up", 1, 6, true, map[int]Rect{1: {0, 0, 40, 23}, 2: {41, 0, 39, 6}, 3: {41, 6, 39, 17}}},
		{"horizontal clamped at the minimum rows", 1, 1, true, map[int]Rect{1: {0, 0, 40, 23}, 2: {41, 0, 39, 5}, 3: {41, 5, 39, 18}}},
		{"horizontal clamped below", 1, 22, true, map[int]Rect{1: {0, 0, 40, 23}, 2: {41, 0, 39, 18}, 3: {41, 18, 39, 5}}},
		{"no move", 0, 40, false, map[int]Rect{1: {0, 0, 40, 23}, 2: {41, 0, 39, 12}, 3: {41, 12, 39, 11}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, bs := mk()
			if moved := l.DragBorder(0, bs[c.border], c.to, 80, 23); moved != c.moved {
				t.Errorf("DragBorder moved = %v, want %v", moved, c.moved)
			}
			if got := frames(l.Place(0, 80, 23)); !reflect.DeepEqual(got, c.want) {
				t.Errorf("frames = %v\nwant     %v", got, c.want)
			}
			checkTiling(t, l, 0, 80, 23)
		})
	}
	t.Run("stale or foreign borders", func(t *testing.T) {
		l, bs := mk()
		stale := bs[1]
		stale.Node = 1 // a leaf now
		wrongKind := bs[0]
		wrongKind.Split = Down
		for _, b := range []Border{stale, wrongKind} {
			if l.DragBorder(0, b, 10, 80, 23) {
				t.Errorf("DragBorder(%+v) moved", b)
			}
		}
		if l.DragBorder(3, bs[0], 10, 80, 23) {
			t.Errorf("DragBorder on a missing tab moved")
		}
		l.ToggleZoom()
		if l.DragBorder(0, bs[0], 10, 80, 23) {
			t.Errorf("DragBorder on a zoomed tab moved")
		}
	})
	t.Run("nested panes keep their minimum", func(t *testing.T) {
		// 1 | (2 | 3): dragging the outer border right must stop before
		// 2 or 3 drops under MinCols.
		l := build(t, 120, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "right"})
		b := l.Borders(0, 120, 23)[0]
		if !l.DragBorder(0, b, 119, 120, 23) {
			t.Fatal("did not move")
		}
		for _, p := range l.Place(0, 120, 23) {
			if p.Content.W < MinCols {
				t.Errorf("pane %d is %d columns after the drag", p.Pane, p.Content.W)
			}
		}
		if f := frames(l.Place(0, 120, 23)); f[1].W <= 60 {
			t.Errorf("pane 1 did not grow: %v", f)
		}
	})
	t.Run("a window too small never shrinks a pane further", func(t *testing.T) {
		// At 60 columns 1 | (2 | 3) is 30 | 14 | 14: 2 and 3 are already
		// under MinCols and may not shrink at all; 1 may shrink to MinCols.
		l := build(t, 200, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "right"})
		b := l.Borders(0, 60, 23)[0]
		if f := frames(l.Place(0, 60, 23)); f[1].W != 30 || f[2].W != 14 || f[3].W != 14 {
			t.Fatalf("frames at 60 columns = %v", f)
		}
		if l.DragBorder(0, b, 40, 60, 23) {
			t.Errorf("moved although panes 2 and 3 would shrink: %v", frames(l.Place(0, 60, 23)))
		}
		if !l.DragBorder(0, b, 5, 60, 23) {
			t.Fatal("refused to shrink pane 1 toward the minimum")
		}
		if f := frames(l.Place(0, 60, 23)); f[1].W != MinCols || f[2].W+f[3].W != 60-MinCols-2 {
			t.Errorf("frames after the drag = %v, want pane 1 at %d columns", f, MinCols)
		}
	})
}

func TestDumpParseRoundTrip(t *testing.T) {
	l := build(t, 200, 49, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"}, step{3, 4, "tab"}, step{4, 5, "down"})
	if err := l.SetTabName(1, `logs "x" ✓`); err != nil {
		t.Fatal(err)
	}
	l.DragBorder(0, l.Borders(0, 200, 49)[0], 67, 200, 49)
	if err := l.SelectTab(0); err != nil {
		t.Fatal(err)
	}
	l.ToggleZoom()
	d := l.Dump()
	want := `active=0; tab "" focus=3 zoomed right(0.33668341708542715 1 down(0.5 2 3)); tab "logs \"x\" ✓" focus=5 down(0.5 4 5)`
	if d != want {
		t.Fatalf("Dump() = %s\nwant     %s", d, want)
	}
	p, err := Parse(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dump() != d {
		t.Errorf("Parse(Dump()).Dump() = %s", p.Dump())
	}
	for tab := range l.Tabs() {
		if !reflect.DeepEqual(p.Place(tab, 200, 49), l.Place(tab, 200, 49)) {
			t.Errorf("tab %d places differently after the round trip", tab)
		}
	}
	if !reflect.DeepEqual(p.Tabs(), l.Tabs()) || p.Focused() != l.Focused() || p.ActiveTab() != l.ActiveTab() {
		t.Errorf("Tabs differ: %+v vs %+v", p.Tabs(), l.Tabs())
	}
	for _, s := range []string{"active=0", `  active=1 ;tab "a"  focus=2 right( 0.25 1  2 ) ; tab "" focus=3 3 `} {
		q, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if r, err := Parse(q.Dump()); err != nil || r.Dump() != q.Dump() {
			t.Errorf("Parse(%q) does not round trip: %s", s, q.Dump())
		}
	}
	// A parsed layout works like a built one: the active tab's focus is the
	// most recent, and Remove hands focus on.
	q, _ := Parse(`active=0; tab "" focus=2 right(0.5 1 2)`)
	if err := q.Remove(2); err != nil || q.Focused() != 1 {
		t.Errorf("Remove after Parse: %v, focus %d", err, q.Focused())
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in  string
		pos int
		msg string
	}{
		{"", 0, `expected "active=", found the end of the string`},
		{"active=x", 7, `expected the active tab index, found "x"`},
		{"active=0 tab", 9, `expected ";", found "tab"`},
		{"active=0; tabs", 13, `expected a double-quoted tab name, found "s"`},
		{"active=0; tab name", 14, `expected a double-quoted tab name`},
		{`active=0; tab "a" 1`, 18, `expected "focus=", found "1"`},
		{`active=0; tab "a\n" focus=1 1`, 14, `expected a tab name of at most 64 printable characters`},
		{`active=0; tab "a" focus=1 left(0.5 1 2)`, 26, `expected a pane id or "right(" or "down(", found "left(0.5 1 2...`},
		{`active=0; tab "a" focus=1 right(1 1 2)`, 32, `expected a split ratio strictly between 0 and 1, found "1 1 2)"`},
		{`active=0; tab "a" focus=1 right(0 1 2)`, 32, `ratio strictly between 0 and 1`},
		{`active=0; tab "a" focus=1 right(NaN 1 2)`, 32, `ratio strictly between 0 and 1`},
		{`active=0; tab "a" focus=1 right(0.5 1 2`, 39, `expected ")", found the end of the string`},
		{`active=0; tab "a" focus=1 right(0.5 1)`, 37, `expected a pane id or "right(" or "down(", found ")"`},
		{`active=0; tab "a" focus=1 right(0.5 1 1)`, 38, `expected a pane id not used before, found 1 again`},
		{`active=0; tab "a" focus=1 1; tab "" focus=1 1`, 44, `found 1 again`},
		{`active=0; tab "a" focus=0 0`, 26, `expected a positive pane id, found 0`},
		{`active=0; tab "a" focus=3 right(0.5 1 2)`, 24, `expected the focus to be a pane of its tab (1, 2), found 3`},
		{`active=1; tab "a" focus=1 1`, 7, `expected an active tab index from 0 to 0, found 1`},
		{`active=2`, 7, `expected an active tab index from 0 to 0, found 2`},
		{`active=0; tab "a" focus=1 1 2`, 28, `expected ";", found "2"`},
		{`active=0; tab "a" focus=1 ` + strings.Repeat("down(0.5 ", 300) + "1", 26 + 9*maxDepth, `expected splits nested at most 256 deep`},
	} {
		_, err := Parse(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrParse) {
			t.Errorf("Parse(%q) = %v, want a *ParseError", c.in, err)
			continue
		}
		if pe.Pos != c.pos || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Parse(%q) = %v (pos %d)\nwant pos %d and %q", c.in, err, pe.Pos, c.pos, c.msg)
		}
	}
}

// TestDocumentedCapacity holds the figures the MinCols/MinRows comment gives:
// splitting evenly, the default 200x50 session (49 rows for panes) takes 8
// panes side by side or 8 stacked, and an 80x24 terminal 4 of each, before
// a split turns into a tab.
func TestDocumentedCapacity(t *testing.T) {
	for _, c := range []struct {
		kind string
		w, h int
		want int
	}{
		{"right", 200, 49, 8}, {"down", 200, 49, 8},
		{"right", 80, 23, 4}, {"down", 80, 23, 4},
	} {
		l := New()
		if _, err := l.Add(0, 1, "tab", c.w, c.h); err != nil {
			t.Fatal(err)
		}
		next := 2
		// Split every pane of the first tab once per round, so sizes stay even.
		for round := 0; round < 6; round++ {
			for _, id := range l.Tabs()[0].Panes {
				if _, err := l.Add(id, next, c.kind, c.w, c.h); err != nil {
					t.Fatal(err)
				}
				next++
			}
		}
		if got := len(l.Tabs()[0].Panes); got != c.want {
			t.Errorf("%s splits at %dx%d: %d panes in the first tab, want %d", c.kind, c.w, c.h, got, c.want)
		}
	}
}
