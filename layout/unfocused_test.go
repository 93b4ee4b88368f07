package layout

import "testing"

// TestAddUnfocused: a pane added without focus, beside the focused one, in
// another tab, in a new tab and in a split too small (a tab then), leaves
// the active tab and every tab's focus as they were; removing the focused
// pane hands focus to the one used before it, not to the pane never used;
// a zoomed tab it splits is unzoomed so the new pane shows.
func TestAddUnfocused(t *testing.T) {
	// tab 0: 1 | 2, focus on 1; tab 1: 3.
	l := build(t, 80, 23, step{0, 1, "tab"}, step{1, 2, "right"}, step{1, 3, "tab"})
	if err := l.Focus(1); err != nil {
		t.Fatal(err)
	}
	add := func(target, id int, kind string) AddResult {
		t.Helper()
		res, err := l.AddUnfocused(target, id, kind, 80, 23)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check := func(step, dump string) {
		t.Helper()
		if got := l.Dump(); got != dump {
			t.Fatalf("after %s:\n got %s\nwant %s", step, got, dump)
		}
	}
	if res := add(1, 4, "down"); res.Used != Down || res.Tab != 0 {
		t.Fatalf("split: %+v", res)
	}
	check("a split of the focused pane", `active=0; tab "" focus=1 right(0.5 down(0.5 1 4) 2); tab "" focus=3 3`)
	add(3, 5, "right")
	check("a split in another tab", `active=0; tab "" focus=1 right(0.5 down(0.5 1 4) 2); tab "" focus=3 right(0.5 3 5)`)
	if res := add(1, 6, "tab"); res.Tab != 2 {
		t.Fatalf("tab: %+v", res)
	}
	check("a new tab", `active=0; tab "" focus=1 right(0.5 down(0.5 1 4) 2); tab "" focus=3 right(0.5 3 5); tab "" focus=6 6`)
	// In a window 8 rows high, pane 4 has 3: too few to split.
	if res, err := l.AddUnfocused(4, 7, "down", 80, 8); err != nil || res.Used != Tab || res.Tab != 3 || res.Note == "" {
		t.Fatalf("a split too small should open a tab, saying so: %+v %v", res, err)
	}
	check("a split too small", `active=0; tab "" focus=1 right(0.5 down(0.5 1 4) 2); tab "" focus=3 right(0.5 3 5); tab "" focus=6 6; tab "" focus=7 7`)

	// Focus went 2 then 1; pane 4 was never focused: removing 1 goes to 2.
	if err := l.Focus(2); err != nil {
		t.Fatal(err)
	}
	if err := l.Focus(1); err != nil {
		t.Fatal(err)
	}
	if err := l.Remove(1); err != nil {
		t.Fatal(err)
	}
	if got := l.Focused(); got != 2 {
		t.Fatalf("removing the focused pane gave focus to %d, want 2 (used before it)", got)
	}

	l.ToggleZoom()
	if !l.Tabs()[0].Zoomed {
		t.Fatal("tab 0 should be zoomed")
	}
	add(2, 8, "right")
	if tab := l.Tabs()[0]; tab.Zoomed || tab.Focus != 2 || l.ActiveTab() != 0 {
		t.Fatalf("a split of a zoomed tab: %+v, active %d (want unzoomed, focus 2, active 0)", tab, l.ActiveTab())
	}
}
