package layout_test

import (
	"fmt"

	"github.com/melmux/melmux/layout"
)

func Example() {
	l := layout.New()
	w, h := 80, 23 // the session size minus the status line
	l.Add(0, 1, "tab", w, h)
	l.Add(1, 2, "right", w, h)
	l.Add(2, 3, "down", w, h)
	l.Add(3, 4, "right", w, h)
	r, _ := l.Add(4, 5, "right", w, h)
	fmt.Println(r.Used, r.Tab, r.Note)
	for _, p := range l.Place(0, w, h) {
		fmt.Printf("pane %d frame %v pty %dx%d\n", p.Pane, p.Frame, p.Content.W, p.Content.H)
	}
	fmt.Println(l.Dump())
	// Output:
	// tab 1 right split of pane 4 would leave pane 4 9 columns wide, narrower than the minimum 16; opened a tab instead
	// pane 1 frame {0 0 40 23} pty 40x22
	// pane 2 frame {41 0 39 12} pty 39x11
	// pane 3 frame {41 12 19 11} pty 19x10
	// pane 4 frame {61 12 19 11} pty 19x10
	// active=1; tab "" focus=4 right(0.5 1 down(0.5 2 right(0.5 3 4))); tab "" focus=5 5
}
