package term

// Text is the screen as text at one instant, with the lines that went to
// history since an earlier count: a reader that keeps Total from one look to
// the next sees every line once, whether it is still on the screen or
// scrolled off in between.
type Text struct {
	// History holds the lines saved to history since the count asked for,
	// oldest first (as many as the history still holds).
	History []string
	// Lines are the screen rows, as Lines returns them.
	Lines []string
	// CursorY is the cursor's row; CursorHidden says the program hid it.
	CursorY      int
	CursorHidden bool
	// Total is HistoryTotal at the same instant.
	Total uint64
}

// TextSince returns the screen and the history lines saved after the
// HistoryTotal count since, all read under one lock so that no line is seen
// twice or missed by scrolling between two calls.
func (t *Terminal) TextSince(since uint64) Text {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
	c := t.cursorLocked()
	out := Text{Lines: t.linesLocked(), CursorY: c.Y, CursorHidden: !c.Visible, Total: t.h.total}
	if since < t.h.total {
		n := int(min(t.h.total-since, uint64(t.h.n)))
		out.History = make([]string, n)
		for i := range n {
			out.History[i] = t.h.at(t.h.n - n + i).textTrimmed()
		}
	}
	return out
}
