package pdf

import (
	"strings"
	"unicode"
)

// textStyle is how a stretch of inline text looks.
type textStyle struct {
	bold, italic, mono bool
	strike, underline  bool
	shade              bool // inline code: light background
	link               string
	size               float64
	color              [3]int
}

// span is inline content before line breaking: text in one style, or a
// hard line break.
type span struct {
	text  string
	style textStyle
	hard  bool
}

// piece is text drawn with one font slot in one style.
type piece struct {
	text  string
	slot  *fontSlot
	style textStyle
	w     float64
}

// word is the unit of line breaking: pieces that must stay together, a
// breakable space, or a forced break.
type word struct {
	pieces []piece
	w      float64
	space  bool
	brk    bool
}

type line struct {
	words []word
	w, h  float64
}

const lineSpacing = 1.4 // line height as a multiple of the font size

// isBreakAnywhere reports runes after which a line may break though no
// space follows: CJK text is written without spaces between words.
func isBreakAnywhere(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// words turns spans into measured words, choosing a font per rune.
func (fs *fontSet) words(spans []span) []word {
	var out []word
	var cur word
	flush := func() {
		if len(cur.pieces) > 0 {
			out = append(out, cur)
		}
		cur = word{}
	}
	for _, sp := range spans {
		if sp.hard {
			flush()
			out = append(out, word{brk: true})
			continue
		}
		for _, r := range strings.ToValidUTF8(sp.text, "\uFFFD") {
			switch {
			case r == '\t' || r == '\n' || r == '\r' || (unicode.IsSpace(r) && r != '\u00a0'):
				flush()
				if len(out) > 0 && !out[len(out)-1].space && !out[len(out)-1].brk {
					out = append(out, fs.spaceWord(sp.style))
				}
			case unicode.IsControl(r):
				// invisible; fonts draw nothing useful for it
			case isBreakAnywhere(r):
				flush()
				fs.appendRune(&cur, r, sp.style)
				flush()
			default:
				fs.appendRune(&cur, r, sp.style)
			}
		}
	}
	flush()
	for i := range out {
		fs.measure(&out[i])
	}
	return out
}

func (fs *fontSet) spaceWord(st textStyle) word {
	slot, _ := fs.pick(' ', st.bold, st.italic, st.mono)
	return word{space: true, pieces: []piece{{text: " ", slot: slot, style: st}}}
}

func (fs *fontSet) appendRune(w *word, r rune, st textStyle) {
	slot, r := fs.pick(r, st.bold, st.italic, st.mono)
	if n := len(w.pieces); n > 0 && w.pieces[n-1].slot == slot && w.pieces[n-1].style == st {
		w.pieces[n-1].text += string(r)
		return
	}
	w.pieces = append(w.pieces, piece{text: string(r), slot: slot, style: st})
}

func (fs *fontSet) measure(w *word) {
	w.w = 0
	for i := range w.pieces {
		p := &w.pieces[i]
		p.w = fs.width(p.slot, p.style.size, p.text)
		w.w += p.w
	}
}

// breakLines fills lines of at most maxW greedily. A word wider than a
// whole line is cut between characters: long URLs and hashes must not run
// off the page.
func (fs *fontSet) breakLines(words []word, maxW, defaultSize float64) []line {
	const eps = 0.01
	var lines []line
	var cur line
	var pending *word
	emit := func() {
		lines = append(lines, cur)
		cur = line{}
		pending = nil
	}
	for i := range words {
		wd := words[i]
		switch {
		case wd.brk:
			emit()
			continue
		case wd.space:
			if len(cur.words) > 0 {
				pending = &words[i]
			}
			continue
		}
		sw := 0.0
		if pending != nil {
			sw = pending.w
		}
		if len(cur.words) > 0 && cur.w+sw+wd.w <= maxW+eps {
			if pending != nil {
				cur.words = append(cur.words, *pending)
			}
			cur.words = append(cur.words, wd)
			cur.w += sw + wd.w
			pending = nil
			continue
		}
		if len(cur.words) > 0 {
			emit()
		}
		pending = nil
		if wd.w <= maxW+eps {
			cur.words = append(cur.words, wd)
			cur.w = wd.w
			continue
		}
		chunks := fs.splitWord(wd, maxW)
		for j, c := range chunks {
			cur.words = append(cur.words, c)
			cur.w = c.w
			if j < len(chunks)-1 {
				emit()
			}
		}
	}
	if len(cur.words) > 0 || len(lines) == 0 {
		lines = append(lines, cur)
	}
	for i := range lines {
		h := defaultSize * lineSpacing
		for _, w := range lines[i].words {
			for _, p := range w.pieces {
				h = max(h, p.style.size*lineSpacing)
			}
		}
		lines[i].h = h
	}
	return lines
}

// splitWord cuts an over-long word into chunks no wider than maxW (but at
// least one character each, so an absurdly narrow column still progresses).
func (fs *fontSet) splitWord(wd word, maxW float64) []word {
	var chunks []word
	var cur word
	for _, p := range wd.pieces {
		for _, r := range p.text {
			rw := fs.width(p.slot, p.style.size, string(r))
			if cur.w+rw > maxW && cur.w > 0 {
				chunks = append(chunks, cur)
				cur = word{}
			}
			n := len(cur.pieces)
			if n > 0 && cur.pieces[n-1].slot == p.slot && cur.pieces[n-1].style == p.style {
				cur.pieces[n-1].text += string(r)
				cur.pieces[n-1].w += rw
			} else {
				cur.pieces = append(cur.pieces, piece{text: string(r), slot: p.slot, style: p.style, w: rw})
			}
			cur.w += rw
		}
	}
	if len(cur.pieces) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// naturalWidth is the width of the words set on one unbroken line (hard
// breaks start a new line); minWidth is the widest single word. Table
// columns are sized from these.
func naturalWidth(words []word) (natural, minimum float64) {
	cur := 0.0
	for _, w := range words {
		if w.brk {
			natural = max(natural, cur)
			cur = 0
			continue
		}
		cur += w.w
		if !w.space {
			minimum = max(minimum, w.w)
		}
	}
	return max(natural, cur), minimum
}

// plainText flattens spans to their text, for comparisons such as "is the
// link text already the URL".
func plainText(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		if s.hard {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(s.text)
	}
	return b.String()
}

// expandTabs replaces tabs with spaces to the next multiple of four, the
// way a terminal shows code.
func expandTabs(s string) string {
	if !strings.ContainsRune(s, '\t') {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// codeWords builds words for one line of code: spaces are kept as text
// (indentation matters), so the only breaks are forced cuts in splitWord.
func (fs *fontSet) codeWords(text string, st textStyle) []word {
	var w word
	for _, r := range strings.ToValidUTF8(text, "\uFFFD") {
		if unicode.IsControl(r) {
			continue
		}
		fs.appendRune(&w, r, st)
	}
	if len(w.pieces) == 0 {
		return nil
	}
	fs.measure(&w)
	return []word{w}
}
