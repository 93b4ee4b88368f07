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
	if n := t.h.newer(since); n > 0 {
		out.History = make([]string, n)
		for i := range n {
			out.History[i] = t.h.at(t.h.n - n + i).textTrimmed()
		}
	}
	return out
}

// TapScrolled calls fn(line, true) with the text of each line as it is
// saved to history (trailing blanks trimmed, as TextSince gives them), and
// fn(line, false) for each line a grow takes back from history onto the
// screen, from the moment it returns until stop is called, and returns the
// lines on the screen at that moment (so that none is both on the screen
// taken and seen by fn): a reader that looks only now and then (TextSince)
// misses the lines a burst pushes through the whole ring between two looks,
// a tap does not. A line taken back and saved again is seen each time, so
// that a reader counting lines saved minus lines taken back, plus the
// screen, counts each line once. fn runs with the terminal locked, on the
// goroutine feeding it: it must be quick and must not call the Terminal. A
// pane with no history (a limit of 0) saves no lines, so fn sees none.
func (t *Terminal) TapScrolled(fn func(line string, saved bool)) (screen []string, stop func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
	screen = t.linesLocked()
	if t.h.taps == nil {
		t.h.taps = map[int]func(string, bool){}
	}
	t.h.nextID++
	id := t.h.nextID
	t.h.taps[id] = fn
	return screen, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.h.taps, id)
	}
}
