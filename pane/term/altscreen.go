package term

import "github.com/hinshun/vt10x"

// savedPrimary is the primary screen as it was when the alternate screen
// was entered, tmux's saved grid. vt10x resizes the hidden primary screen
// along with the one shown: it slides both up by what the alternate
// screen's cursor needs and cuts them to the new size, so that the primary
// screen's top rows (or its bottom rows, the cursor's among them) would be
// lost, and it cannot be read while hidden. So a resize while the alternate
// screen is shown marks this copy as the truth, and leaving the alternate
// screen then resizes it from its size to the screen's as tmux 3.3a does
// then (screen_alternate_off): rows below the cursor go first, then the top
// rows go to history; a taller screen brings lines that scrolled into
// history back. The rows go to history when the program leaves the
// alternate screen, not at the resize: while it is shown, history is as
// tmux has it, and a shrink followed by a grow back loses nothing.
//
// TestAltScreenResizeAgreesWithTmux compares the screen, history and cursor
// after leaving with tmux's. A change of width reflows the primary screen
// and history when the program leaves, not before, as in tmux. Differences
// kept: after ?47l or ?1047l, which leave the cursor
// where the program put it, tmux places the rows around that row, dropping
// the rows below it that do not fit (the shell's last lines and prompt, when
// the program worked near the top), where this package places them around
// the row the cursor was on when the program entered, as for ?1049l, and
// loses none; and the pen after ?1049l is vt10x's saved one (a DECSC on the
// alternate screen replaces it), where tmux keeps one for the alternate
// screen alone. Entering the alternate screen costs a read of the screen.
type savedPrimary struct {
	lines   []histLine // the rows, top first, their data their own
	cols    int        // the width they were saved at
	cx, cy  int        // the cursor when the alternate screen was entered
	resized bool       // a resize since: vt10x's copy is wrong
	// cached is set while the primary screen is shown and still holds
	// lines: left unchanged since the alternate screen was left (only
	// cursor moves, pens and modes written, as keepsCells tells), so
	// that entering the alternate screen again need not read it.
	cached bool
}

// savePrimaryLocked copies the primary screen before the alternate screen
// is shown. The cursor must be in sync.
func (t *Terminal) savePrimaryLocked() {
	p := &t.primary
	if t.h.n > 0 {
		// tmux clears the screen for the alternate one, which ends the
		// newest history line's wrap onto the screen's first row: a
		// reflow no longer joins them.
		t.h.at(t.h.n - 1).wrapped = false
	}
	t.flushLocked()
	// The plain path (fastOff) reads it every time, for the tests' comparison.
	cached := p.cached && !t.fastOff && p.cols == t.cols && len(p.lines) == t.rows
	p.cached = false
	p.cx, p.cy, p.cols, p.resized = t.cx, t.cy, t.cols, false
	if cached {
		return
	}
	p.lines = p.lines[:0]
	for y := range t.rows {
		g, ok := t.readGlyphsLocked(y)
		if !ok {
			p.lines = p.lines[:0]
			return
		}
		p.lines = append(p.lines, t.encodeRowLocked(g, len(g), true))
	}
}

// restorePrimaryLocked draws the saved primary screen, at the screen's size,
// after vt10x switched back to the primary screen, if the screen was resized
// since it was saved (otherwise vt10x's copy is right). The rows are placed
// around the row the cursor was on when the program entered the alternate
// screen; cursor says the cursor goes back there (?1049l), without it stays
// where the program left it (?47l, ?1047l, RIS), moved with the text.
func (t *Terminal) restorePrimaryLocked(cursor bool) {
	p := &t.primary
	if !p.resized && len(p.lines) > 0 {
		// vt10x shows the primary screen as it was saved: the copy is
		// kept for the next entry, once the leave is written.
		t.flushLocked()
		p.cached = true
		return
	}
	defer func() {
		clear(p.lines)
		p.lines, p.resized, p.cached = p.lines[:0], false, false
	}()
	if !p.resized || len(p.lines) == 0 {
		return
	}
	t.syncCursorLocked()
	lines, x, y := t.relayoutLocked(p.lines, p.cols, p.cx, p.cy, t.cols, t.rows)

	var pen vt10x.Glyph
	t.guardLocked(func() { pen = t.vt.Cursor().Attr })
	// tmux's resize sets the scroll region to the whole screen, and the
	// rows are drawn in it (the cursor's row is then the same with origin
	// mode on).
	if t.top != 0 || t.bottom != t.rows-1 {
		t.top, t.bottom = 0, t.rows-1
		t.out = appendCSI2(t.out, 1, t.rows, 'r')
	}
	t.out = append(t.out, "\x1b[0m\x1b[1;1H\x1b[2J"...)
	t.drawRowsLocked(lines, pen.Mode&vtGfx != 0)
	if cursor {
		t.out = appendCUP(t.out, y, min(x, t.cols-1))
	} else {
		// The cursor moves with the text, as on a resize.
		t.out = appendCUP(t.out, min(max(t.cy+y-p.cy, 0), t.rows-1), t.cx)
	}
	t.out = appendSGRForGlyph(t.out, pen, false)
	t.touchedLocked()
	t.curValid = false
	t.flushLocked()
}

// keepsCells reports whether the normalised bytes b, written to vt10x, leave
// every cell of the screen as it is: carriage returns, cursor moves and
// saves, SGR, the character set, DECSTBM and modes other than the screen
// switches. Anything else may change cells.
func keepsCells(b []byte) bool {
	for i := 0; i < len(b); {
		switch {
		case b[i] == '\r':
			i++
			continue
		case b[i] != 0x1b || i+1 >= len(b):
			return false
		}
		switch b[i+1] {
		case '=', '>', '7', '8':
			i += 2
			continue
		case '(':
			i += 3
			continue
		case '[':
		default:
			return false
		}
		k := i + 2
		private := k < len(b) && b[k] == '?'
		if private {
			k++
		}
		mode := 0
		for ; k < len(b) && (b[k] >= '0' && b[k] <= '9' || b[k] == ';'); k++ {
			if b[k] == ';' {
				if mode == 47 || mode == 1047 || mode == 1049 {
					return false
				}
				mode = 0
				continue
			}
			mode = mode*10 + int(b[k]-'0')
		}
		if k >= len(b) {
			return false
		}
		switch f := b[k]; {
		case private && (f == 'h' || f == 'l'):
			if mode == 47 || mode == 1047 || mode == 1049 || mode == 1048 {
				return false
			}
		case private:
			return false
		case f == 'H', f == 'A', f == 'B', f == 'C', f == 'D', f == 'G', f == 'd', f == 'e', f == 'a', f == '`',
			f == 'm', f == 'r', f == 's', f == 'u', f == 'E', f == 'F':
		default:
			return false
		}
		i = k + 1
	}
	return true
}
