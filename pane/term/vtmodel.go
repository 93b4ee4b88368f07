package term

import (
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// What the model of the screen (fast.go) needs of vt10x's own rules,
// written from its behaviour (state.go and csi.go of the pinned version),
// and the way back from the model into vt10x.

// penFromStored is the pen appendSGRForGlyph(g, true) gives vt10x: the
// colours swapped back for reverse video, the attributes SGR can set, and no
// character set change (the walk runs only with US-ASCII selected).
func penFromStored(g vt10x.Glyph) vt10x.Glyph {
	fg, bg := g.FG, g.BG
	if g.Mode&vtReverse != 0 {
		fg, bg = bg, fg
	}
	pen := vt10x.Glyph{Mode: g.Mode & (vtBold | vtItalic | vtUnderline | vtBlink | vtReverse), FG: vt10x.DefaultFG, BG: vt10x.DefaultBG}
	if fg < vt10x.DefaultFG {
		pen.FG = fg
	}
	if bg < vt10x.DefaultFG {
		pen.BG = bg
	}
	return pen
}

// vtArgs parses CSI parameters as vt10x does: split at ';', stop at the
// first that is not a number.
func vtArgs(body []byte, args []int) []int {
	if len(body) == 0 {
		return args
	}
	n, digits := 0, 0
	for k := 0; k <= len(body); k++ {
		if k == len(body) || body[k] == ';' {
			if digits == 0 {
				return args
			}
			args = append(args, n)
			n, digits = 0, 0
			continue
		}
		if body[k] < '0' || body[k] > '9' {
			return args
		}
		n = n*10 + int(body[k]-'0')
		digits++
	}
	return args
}

// vtSetAttr is vt10x's setAttr (state.go of the pinned version) on a pen.
func vtSetAttr(pen vt10x.Glyph, attr []int) vt10x.Glyph {
	if len(attr) == 0 {
		attr = []int{0}
	}
	color := func(i int) (vt10x.Color, int, bool) {
		switch {
		case i+2 < len(attr) && attr[i+1] == 5:
			c := attr[i+2]
			return vt10x.Color(c), i + 2, c >= 0 && c <= 255
		case i+4 < len(attr) && attr[i+1] == 2:
			r, g, b := attr[i+2], attr[i+3], attr[i+4]
			ok := r >= 0 && r <= 255 && g >= 0 && g <= 255 && b >= 0 && b <= 255
			return vt10x.Color(r<<16 | g<<8 | b), i + 4, ok
		}
		return 0, i, false
	}
	for i := 0; i < len(attr); i++ {
		switch a := attr[i]; {
		case a == 0:
			pen.Mode &^= vtReverse | vtUnderline | vtBold | vtItalic | vtBlink
			pen.FG, pen.BG = vt10x.DefaultFG, vt10x.DefaultBG
		case a == 1:
			pen.Mode |= vtBold
		case a == 3:
			pen.Mode |= vtItalic
		case a == 4:
			pen.Mode |= vtUnderline
		case a == 5 || a == 6:
			pen.Mode |= vtBlink
		case a == 7:
			pen.Mode |= vtReverse
		case a == 21 || a == 22:
			pen.Mode &^= vtBold
		case a == 23:
			pen.Mode &^= vtItalic
		case a == 24:
			pen.Mode &^= vtUnderline
		case a == 25 || a == 26:
			pen.Mode &^= vtBlink
		case a == 27:
			pen.Mode &^= vtReverse
		case a == 38 || a == 48:
			c, next, ok := color(i)
			i = next
			if ok && a == 38 {
				pen.FG = c
			} else if ok {
				pen.BG = c
			}
		case a == 39:
			pen.FG = vt10x.DefaultFG
		case a == 49:
			pen.BG = vt10x.DefaultBG
		case a >= 30 && a <= 37:
			pen.FG = vt10x.Color(a - 30)
		case a >= 40 && a <= 47:
			pen.BG = vt10x.Color(a - 40)
		case a >= 90 && a <= 97:
			pen.FG = vt10x.Color(a - 90 + 8)
		case a >= 100 && a <= 107:
			pen.BG = vt10x.Color(a - 100 + 8)
		}
	}
	return pen
}

// materializeLocked writes the model of the screen into vt10x and drops it:
// vt10x then holds exactly what the plain path would have left. A cell a
// character made is written again with the pen penFromStored derives from
// it (and the line-drawing set if it had it); a cell a clear made that no
// character could make (a bold pen with colours 0-7) is erased with its pen.
// A row's wrap mark is made as vt10x makes it, by writing on past the row's
// end (the bottom row never has one: a wrap from it scrolls, and no model is
// made of a screen whose bottom row has one); a pending wrap by writing the
// last column again. Blank cells are skipped (the clear left them) or
// written as spaces, whichever costs vt10x fewer runes. The rows are drawn
// with the whole screen as scroll region (a wrap mark made on the region's
// bottom row would scroll it); the program's region, the cursor DECSC saved
// in the model and the cursor itself are set afterwards.
func (t *Terminal) materializeLocked() {
	m := t.model
	t.model = nil
	t.resume = true
	rows := t.rows
	if t.altLeave && t.vmode&vt10x.ModeAltScreen != 0 {
		// What waits for vt10x leaves the alternate screen, clearing it
		// with the pen: only the state that outlives the rows is made.
		rows = 0
	}
	t.altLeave = false
	t.altUniform = false
	if rows > 0 && t.vmode&vt10x.ModeAltScreen == 0 {
		t.primary.cached = false
	}
	mw := materializer{b: append(t.matBuf[:0], "\x1b[0m\x1b[r"...), pen: defaultPen, cols: t.cols}
	// The rows are drawn with auto-wrap on, which makes their wrap marks;
	// the program's mode is set back at the end.
	nowrap := t.vt.Mode()&vt10x.ModeWrap == 0
	if nowrap {
		mw.b = append(mw.b, "\x1b[?7h"...)
	}
	if rows > 0 {
		mw.b = append(mw.b, "\x1b[2J"...)
	}
	joined := false      // the row above wrapped: the next character goes to column 0 of this one
	bottomWraps := false // the bottom row is marked wrapped: made after the rows
	for y := 0; y < rows; y++ {
		s := m.slot(y)
		row := m.ring[s][:m.info[s].used]
		full := m.ring[s]
		wraps := len(row) == t.cols && row[t.cols-1].Mode&vtAttrWrap != 0
		if wraps && y == t.rows-1 {
			wraps, bottomWraps = false, true
		}
		mw.y, mw.at = y, -1
		x := 0
		if joined {
			mw.at = t.cols // past the end of the row above: the next write wraps
			mw.cell(0, full[0], false)
			x = 1
		}
		for x < len(row) {
			if row[x] != blankVTGlyph {
				mw.cell(x, row[x], wraps && x == t.cols-1)
				x++
				continue
			}
			k := x + 1
			for k < len(row) && row[k] == blankVTGlyph {
				k++
			}
			if k == len(row) {
				break // the clear left the rest blank
			}
			if mw.at == x && (k-x)+4*b2i(mw.pen != defaultPen) < 8 {
				for ; x < k; x++ {
					mw.cell(x, row[x], false)
				}
			} else {
				x = k
			}
		}
		joined = wraps
	}
	if bottomWraps {
		// A wrap from the bottom row would scroll the screen; below the
		// scroll region it marks the row and leaves the cursor on it, at
		// column 0, which is then made again.
		s := m.slot(t.rows - 1)
		mw.b = appendCSI2(mw.b, 1, t.rows-1, 'r')
		mw.y, mw.at = t.rows-1, -1
		mw.cell(t.cols-1, m.ring[s][t.cols-1], true)
		mw.b = append(mw.b, ' ')
		mw.at = -1
		mw.cell(0, m.ring[s][0], false)
	}
	if m.rtop != 0 || m.rbottom != t.rows-1 || bottomWraps {
		mw.b = appendCSI2(mw.b, m.rtop+1, m.rbottom+1, 'r')
	}
	if sc := m.saved; m.hasSaved {
		mw.b = appendCUP(mw.b, sc.y, sc.x)
		mw.setPen(sc.pen)
		mw.b = append(mw.b, "\x1b7"...)
	}
	mw.y = m.y
	if m.wrap {
		mw.at = -1
		mw.cell(t.cols-1, m.ring[m.slot(m.y)][t.cols-1], true)
	} else {
		mw.b = appendCUP(mw.b, m.y, m.x)
	}
	mw.setPen(m.pen)
	if nowrap {
		mw.b = append(mw.b, "\x1b[?7l"...)
	}
	t.matBuf = mw.b
	t.guardLocked(func() { _, _ = t.vt.Write(mw.b) })
}

// materializer builds the bytes that write a model into vt10x.
type materializer struct {
	b     []byte
	pen   vt10x.Glyph // vt10x's pen as the bytes so far leave it, the line-drawing set included
	cols  int
	y, at int // the cursor's row and column; at is -1 when not known, cols when a wrap is pending
}

// cell makes cell x of the current row g. With pending set the cursor must
// end past it with a wrap pending, as after writing a character there.
func (mw *materializer) cell(x int, g vt10x.Glyph, pending bool) {
	if x != mw.at && !(mw.at == mw.cols && x == 0) {
		mw.b = appendCUP(mw.b, mw.y, x)
	}
	pen := penFromStored(g)
	pen.Mode |= g.Mode & vtGfx
	if writable(g) {
		mw.setPen(pen)
		mw.b = utf8.AppendRune(mw.b, g.Char)
		mw.moved(x)
		return
	}
	// Made by a clear: erase it with the pen as vt10x's clear stores it.
	// A character first if the cursor must pass it (a wrap onto this row,
	// or a pending wrap after it): EL then keeps what the character left.
	raw := g
	raw.Char = 0
	raw.Mode &^= vtAttrWrap
	if mw.at == mw.cols && x == 0 || pending {
		mw.b = append(mw.b, ' ')
		mw.moved(x)
		mw.b = appendCUP(mw.b, mw.y, x)
		if pending {
			mw.b = append(mw.b, ' ')
		}
		mw.setPen(raw)
		mw.b = append(mw.b, "\x1b[K"...)
		mw.at = -1
		if pending {
			mw.at = mw.cols
		}
		return
	}
	mw.setPen(raw)
	mw.b = append(mw.b, "\x1b[X"...)
	mw.at = x
}

// moved records the cursor after writing a character at column x.
func (mw *materializer) moved(x int) {
	mw.at = x + 1
}

// setPen makes vt10x's pen p, line-drawing set and all.
func (mw *materializer) setPen(p vt10x.Glyph) {
	p.Char = 0
	if p.Mode&vtGfx != mw.pen.Mode&vtGfx {
		if p.Mode&vtGfx != 0 {
			mw.b = append(mw.b, "\x1b(0"...)
		} else {
			mw.b = append(mw.b, "\x1b(B"...)
		}
	}
	a, c := p, mw.pen
	a.Mode &^= vtGfx
	c.Mode &^= vtGfx
	if a != c {
		mw.b = appendSGRForGlyph(mw.b, p, false)
	}
	mw.pen = p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
