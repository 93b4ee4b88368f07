package term

import (
	"unicode/utf8"

	"github.com/hinshun/vt10x"
	"github.com/mattn/go-runewidth"
)

// vt10x stores one rune per cell. Two things need more: a wide character's
// second cell, and a character with combining marks. Both are encoded as
// runes of Unicode's Supplementary Private Use Area-B, which vt10x stores
// like any other character and which this package decodes when reading cells.
const (
	// contRune marks the continuation (second) cell of a wide character.
	contRune rune = 0x10FFFD
	// clusterBase..clusterEnd-1 are codes of interned clusters: a base
	// character with its combining marks, or an input character that is
	// itself in this range (so that input can never forge a code).
	clusterBase rune = 0x100000
	clusterEnd  rune = 0x10FFFC
	// maxClusterBytes caps what one cell holds, as tmux 3.3a's 21-byte
	// UTF8_SIZE does: a mark (or a joined character) that would not fit is
	// dropped, so a flood of them cannot grow a cell.
	maxClusterBytes = 21
	// zwj is the zero width joiner: it and the character after it join the
	// cell before the cursor whatever that character's width, as in tmux 3.3a.
	zwj rune = 0x200D
)

// widthCond fixes the width rules: not East Asian (ambiguous characters are
// narrow, as glibc's wcwidth in a UTF-8 locale, which tmux uses) and emoji
// presentation characters wide.
var widthCond = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// runeWidth is the number of cells r takes: 0 for combining marks, joiners
// and variation selectors, 2 for wide characters, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x20:
		return 0
	case r < 0x7f:
		return 1
	case r < 0xa0:
		return 0
	case r < 0x300:
		return 1
	case r >= clusterBase:
		return 1 // private use: narrow, as wcwidth says
	}
	return widthCond.RuneWidth(r)
}

// clusterTable interns cluster strings as private-use codes. Codes no cell
// uses any more are reclaimed: before the table grows past its threshold
// (twice what was in use after the last reclaim, at least minReclaim), the
// Terminal marks every code on the screen, on the hidden screen and kept for
// REP, and release frees the rest for reuse. Only when every code is in use
// at once are combining marks dropped.
type clusterTable struct {
	codes map[string]rune
	texts []string // by code-clusterBase; "" for a free code
	free  []rune   // released codes, reused first
	next  int      // len(texts) from which to reclaim before growing
	floor int      // the size below which nothing is reclaimed; 0 means minReclaim
	// reclaim marks the codes in use and calls release; set by the Terminal.
	reclaim func()
}

// minReclaim is the table size below which codes are never reclaimed (the
// fuzz test lowers it to reclaim all the time).
const minReclaim = 4096

// code returns the vt10x rune for the character r.
func (c *clusterTable) code(r rune) rune {
	if r < clusterBase {
		return r
	}
	if code, ok := c.intern(string(r)); ok {
		return code
	}
	return utf8.RuneError
}

func (c *clusterTable) intern(s string) (rune, bool) {
	if code, ok := c.codes[s]; ok {
		return code, true
	}
	floor := c.floor
	if floor == 0 {
		floor = minReclaim
	}
	if len(c.free) == 0 && len(c.texts) >= max(c.next, floor) && c.reclaim != nil {
		c.reclaim()
	}
	var code rune
	switch {
	case len(c.free) > 0:
		code = c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
		c.texts[code-clusterBase] = s
	case len(c.texts) < int(clusterEnd-clusterBase):
		code = clusterBase + rune(len(c.texts))
		c.texts = append(c.texts, s)
	default:
		return 0, false
	}
	if c.codes == nil {
		c.codes = make(map[string]rune)
	}
	c.codes[s] = code
	return code, true
}

// inUse returns how many codes are taken.
func (c *clusterTable) inUse() int { return len(c.texts) - len(c.free) }

// mark records code in live (indexed by code-clusterBase) if it is a
// cluster code.
func (c *clusterTable) mark(live []bool, code rune) {
	if code >= clusterBase && code < clusterEnd {
		if i := int(code - clusterBase); i < len(live) {
			live[i] = true
		}
	}
}

// release frees every taken code live does not mark and sets the next
// threshold.
func (c *clusterTable) release(live []bool) {
	used := 0
	for i, s := range c.texts {
		switch {
		case s == "":
		case live[i]:
			used++
		default:
			delete(c.codes, s)
			c.texts[i] = ""
			c.free = append(c.free, clusterBase+rune(i))
		}
	}
	c.next = 2 * used
}

// text returns what a stored rune stands for; blank cells read as a space.
func (c *clusterTable) text(code rune) string {
	switch {
	case code == 0:
		return " "
	case code >= clusterBase && code < clusterEnd:
		if i := int(code - clusterBase); i < len(c.texts) && c.texts[i] != "" {
			return c.texts[i]
		}
		return "\uFFFD"
	}
	return string(code)
}

// base returns the first character of what a stored rune stands for.
func (c *clusterTable) base(code rune) rune {
	if code >= clusterBase && code < clusterEnd {
		if i := int(code - clusterBase); i < len(c.texts) {
			r, _ := utf8.DecodeRuneInString(c.texts[i])
			return r
		}
		return utf8.RuneError
	}
	return code
}

// split returns the base character and the combining marks of a stored rune.
func (c *clusterTable) split(code rune) (rune, string) {
	if code >= clusterBase && code < clusterEnd {
		if i := int(code - clusterBase); i < len(c.texts) {
			s := c.texts[i]
			r, n := utf8.DecodeRuneInString(s)
			return r, s[n:]
		}
		return utf8.RuneError, ""
	}
	return code, ""
}

// combine returns the code for the cell content code followed by mark; false
// when the cell is full or the table is.
func (c *clusterTable) combine(code, mark rune) (rune, bool) {
	s := c.text(code)
	if len(s)+utf8.RuneLen(mark) > maxClusterBytes {
		return 0, false
	}
	return c.intern(s + string(mark))
}

// reclaimClustersLocked frees the cluster codes nothing holds any more: not
// a cell of the screen shown (or of its model), nor of the one hidden behind
// it, nor the character REP would repeat.
// History keeps text, never codes.
func (t *Terminal) reclaimClustersLocked() {
	live := append(t.liveBuf[:0], make([]bool, len(t.clusters.texts))...)
	t.screenCodesLocked(func(code rune) { t.clusters.mark(live, code) })
	for _, code := range t.hidden {
		t.clusters.mark(live, code)
	}

	t.clusters.mark(live, t.lastPrint)
	t.clusters.release(live)
	t.liveBuf = live
}

// switchScreenLocked is called before vt10x switches between the primary
// and alternate screens, to remember the codes of the screen going out of
// sight (vt10x cannot show it). vt10x clears the alternate screen as it
// leaves it, so only the primary screen is ever hidden with content.
func (t *Terminal) switchScreenLocked(toAlt bool) {
	if !toAlt {
		// vt10x clears the alternate screen with the pen as it leaves it.
		var pen vt10x.Glyph
		t.altBlankKnown = t.guardLocked(func() { pen = t.vt.Cursor().Attr })
		pen.Char = ' '
		t.altBlank = pen
	}
	t.hidden = t.hidden[:0]
	if toAlt && t.clusters.inUse() > 0 {
		t.screenCodesLocked(func(code rune) { t.hidden = append(t.hidden, code) })
	}
}

// screenCodesLocked calls f with the cluster code of every cell of the
// screen shown, once what waits for vt10x is on it. While there is a model of
// the screen, that is what is shown.
func (t *Terminal) screenCodesLocked(f func(rune)) {
	if m := t.model; m != nil && len(t.out) == 0 {
		for _, row := range m.ring {
			for _, g := range row {
				if code := g.Char; code >= clusterBase && code < clusterEnd {
					f(code)
				}
			}
		}
		return
	}
	t.flushLocked()
	t.guardLocked(func() {
		for y := 0; y < t.rows; y++ {
			for x := 0; x < t.cols; x++ {
				if code := t.vt.Cell(x, y).Char; code >= clusterBase && code < clusterEnd {
					f(code)
				}
			}
		}
	})
}
