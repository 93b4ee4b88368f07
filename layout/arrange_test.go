package layout

import (
	"errors"
	"strings"
	"testing"
)

// three is a tab of panes 1 | 2 / 3 (2 and 3 stacked right of 1), 3 focused.
func three(t *testing.T) *Layout {
	return build(t, 120, 40, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"})
}

func TestCycleFocus(t *testing.T) {
	l := three(t)
	for _, want := range []int{1, 2, 3, 1} {
		if !l.CycleFocus(1) || l.Focused() != want {
			t.Fatalf("CycleFocus(1): focus %d, want %d", l.Focused(), want)
		}
	}
	if !l.CycleFocus(-1) || l.Focused() != 3 {
		t.Fatalf("CycleFocus(-1): focus %d, want 3 (wraps back)", l.Focused())
	}
	one := build(t, 80, 24, step{0, 1, "tab"})
	if one.CycleFocus(1) {
		t.Error("CycleFocus moved in a tab of one pane")
	}
}

func TestLastPane(t *testing.T) {
	l := three(t)
	_ = l.Focus(1)
	if err := l.LastPane(); err != nil || l.Focused() != 3 {
		t.Fatalf("LastPane after 3 then 1: focus %d, %v; want 3", l.Focused(), err)
	}
	if err := l.LastPane(); err != nil || l.Focused() != 1 {
		t.Fatalf("LastPane again: focus %d, %v; want 1 (toggles)", l.Focused(), err)
	}
	one := build(t, 80, 24, step{0, 1, "tab"}, step{1, 2, "tab"})
	if err := one.LastPane(); !errors.Is(err, ErrNoLast) || !strings.Contains(err.Error(), "alone") {
		t.Errorf("LastPane of a pane alone in its tab: %v", err)
	}
}

func TestSwapPane(t *testing.T) {
	l := three(t) // 1 | 2 / 3, focus 3
	before := frames(l.Place(0, 120, 40))
	if err := l.SwapPane(-1); err != nil {
		t.Fatal(err)
	}
	after := frames(l.Place(0, 120, 40))
	if after[3] != before[2] || after[2] != before[3] || after[1] != before[1] || l.Focused() != 3 {
		t.Fatalf("SwapPane(-1) of 3: %v -> %v, focus %d; want 2 and 3 swapped, focus on 3", before, after, l.Focused())
	}
	if err := l.SwapPane(1); err != nil {
		t.Fatal(err)
	}
	if got := frames(l.Place(0, 120, 40)); got[3] != before[3] {
		t.Fatalf("SwapPane(1) should put 3 back: %v", got)
	}
	// From the last place, the next is the first.
	if err := l.SwapPane(1); err != nil {
		t.Fatal(err)
	}
	if got := frames(l.Place(0, 120, 40)); got[3] != before[1] || got[1] != before[3] {
		t.Fatalf("SwapPane(1) from the last place should swap with the first: %v", got)
	}
	one := build(t, 80, 24, step{0, 1, "tab"})
	if err := one.SwapPane(1); !errors.Is(err, ErrOnePane) {
		t.Errorf("SwapPane alone: %v, want ErrOnePane", err)
	}
}

func TestBreakPane(t *testing.T) {
	l := three(t)
	ti, err := l.BreakPane(2)
	if err != nil {
		t.Fatal(err)
	}
	tabs := l.Tabs()
	if ti != 1 || len(tabs) != 2 || l.ActiveTab() != 1 || l.Focused() != 2 {
		t.Fatalf("BreakPane(2): tab %d, active %d, focus %d, tabs %+v", ti, l.ActiveTab(), l.Focused(), tabs)
	}
	if got := tabs[0].Panes; len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("the first tab should keep 1 and 3: %v", got)
	}
	if _, err := l.BreakPane(2); !errors.Is(err, ErrOnePane) {
		t.Errorf("BreakPane of a pane alone: %v, want ErrOnePane", err)
	}
	if _, err := l.BreakPane(9); !errors.Is(err, ErrNoSuchPane) {
		t.Errorf("BreakPane(9): %v, want ErrNoSuchPane", err)
	}
}

func TestNextArrangement(t *testing.T) {
	l := build(t, 120, 40, step{0, 1, "tab"}, step{1, 2, "right"}, step{2, 3, "down"}, step{1, 4, "down"})
	check := func(name string, ok func(f map[int]Rect) bool) {
		t.Helper()
		got, err := l.NextArrangement(120, 40)
		if err != nil || got != name {
			t.Fatalf("NextArrangement: %q, %v; want %q", got, err, name)
		}
		f := frames(l.Place(0, 120, 40))
		if len(f) != 4 || !ok(f) {
			t.Fatalf("%s: %v", name, f)
		}
		if l.Focused() != 4 {
			t.Fatalf("%s moved the focus to %d", name, l.Focused())
		}
	}
	// Tree order 1 4 2 3.
	check("even-horizontal", func(f map[int]Rect) bool {
		return f[1].Y == 0 && f[4].Y == 0 && f[1].X < f[4].X && f[4].X < f[2].X && f[2].X < f[3].X && f[1].H == 40 && f[3].W-f[1].W <= 1
	})
	check("even-vertical", func(f map[int]Rect) bool {
		return f[1].X == 0 && f[3].X == 0 && f[1].Y < f[4].Y && f[2].Y < f[3].Y && f[1].W == 120 && f[3].H-f[1].H <= 1
	})
	check("main-horizontal", func(f map[int]Rect) bool {
		return f[1].W == 120 && f[1].H == 24 && f[4].Y == 24 && f[2].Y == 24 && f[3].Y == 24
	})
	check("main-vertical", func(f map[int]Rect) bool {
		return f[1].H == 40 && f[4].X == f[1].W+1 && f[2].X == f[4].X && f[3].X == f[4].X
	})
	check("tiled", func(f map[int]Rect) bool {
		return f[1].Y == 0 && f[4].Y == 0 && f[2].Y == f[3].Y && f[2].Y > 0 && f[2].X == 0 && f[4].X == f[3].X
	})
	check("even-horizontal", func(f map[int]Rect) bool { return f[3].Y == 0 })

	// Eight panes in 80x24: side by side is too narrow, stacked too low;
	// those are passed over.
	ids := []step{{0, 1, "tab"}}
	for i := 2; i <= 8; i++ {
		ids = append(ids, step{i - 1, i, "tab"})
	}
	many := build(t, 80, 24, ids...)
	// Put them in one tab by arranging a tiled tree directly.
	many.tabs = many.tabs[:1]
	many.tabs[0].root = arrange("tiled", []int{1, 2, 3, 4, 5, 6, 7, 8})
	many.tabs[0].focus, many.active = 1, 0
	got, err := many.NextArrangement(80, 24)
	if err != nil || got != "tiled" {
		// The others put 8 or 7 panes side by side or stacked.
		t.Fatalf("eight panes in 80x24: %q, %v; want tiled (the only one that fits)", got, err)
	}
	if _, err := many.NextArrangement(40, 10); !errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), "even-horizontal would leave pane") {
		t.Errorf("no arrangement fits: %v", err)
	}
	one := build(t, 80, 24, step{0, 1, "tab"})
	if _, err := one.NextArrangement(80, 24); !errors.Is(err, ErrOnePane) {
		t.Errorf("one pane: %v, want ErrOnePane", err)
	}
}

func TestSplitRoom(t *testing.T) {
	l := build(t, 40, 23, step{0, 1, "tab"}, step{1, 2, "right"})
	before := l.Dump()
	if err := l.SplitRoom(2, Right, 40, 23); !errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), "narrower than the minimum 16") {
		t.Errorf("SplitRoom right of a 19-column pane: %v", err)
	}
	if err := l.SplitRoom(2, Down, 40, 23); err != nil {
		t.Errorf("SplitRoom down: %v", err)
	}
	if l.Dump() != before {
		t.Errorf("SplitRoom changed the layout: %s -> %s", before, l.Dump())
	}
	if err := l.SplitRoom(7, Down, 40, 23); !errors.Is(err, ErrNoSuchPane) {
		t.Errorf("SplitRoom(7): %v", err)
	}
}
