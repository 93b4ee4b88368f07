package pdf

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
)

// fontKey names a font inside one fpdf document: a family and a style
// ("", "B", "I" or "BI").
type fontKey struct {
	family, style string
}

// fontSlot is one font the document may use. Core fonts (utf8 false) take
// Windows-1252 bytes; UTF-8 fonts take text as is.
type fontSlot struct {
	key   fontKey
	utf8  bool
	face  *face // nil for core fonts
	added bool  // registered with fpdf yet (UTF-8 fonts are added lazily)
}

func (s *fontSlot) covers(r rune) bool {
	if s.utf8 {
		return s.face.cover.has(r)
	}
	_, ok := cp1252Byte(r)
	return ok
}

// fontSet decides, per character, which font draws it: the face for the
// wanted style when it has the glyph, else the regular body face, else the
// first fallback that has it. This is what lets "日本" appear in a
// document set in DejaVu Sans, which has no CJK glyphs.
type fontSet struct {
	doc       *fpdf.Fpdf
	body      [4]*fontSlot // indexed by styleIndex
	mono      [2]*fontSlot // regular, bold
	fallbacks []*fontSlot
}

func styleIndex(bold, italic bool) int {
	i := 0
	if bold {
		i |= 1
	}
	if italic {
		i |= 2
	}
	return i
}

var styleNames = [4]string{"", "B", "I", "BI"}

// newFontSet builds the slots from what discovery found. Nothing is read
// into the document yet: a font is embedded only if some text uses it.
func newFontSet(doc *fpdf.Fpdf, ff fontFiles) *fontSet {
	fs := &fontSet{doc: doc}
	utf8Slot := func(family, style, path string) *fontSlot {
		if path == "" {
			return nil
		}
		f, err := loadFace(path)
		if err != nil {
			return nil
		}
		return &fontSlot{key: fontKey{family, style}, utf8: true, face: f}
	}
	bodyFiles := [4]string{ff.Regular, ff.Bold, ff.Italic, ff.BoldItalic}
	regular := utf8Slot("body", "", ff.Regular)
	for i := range fs.body {
		if regular == nil {
			fs.body[i] = &fontSlot{key: fontKey{"helvetica", styleNames[i]}}
			continue
		}
		path := bodyFiles[i]
		if path == "" {
			// No file for this style: draw it with the regular file
			// rather than lose the text.
			path = ff.Regular
		}
		if s := utf8Slot("body", styleNames[i], path); s != nil {
			fs.body[i] = s
		} else {
			fs.body[i] = utf8Slot("body", styleNames[i], ff.Regular)
		}
	}
	monoFiles := [2]string{ff.Mono, ff.MonoBold}
	for i := range fs.mono {
		path := monoFiles[i]
		if path == "" {
			path = ff.Mono
		}
		if s := utf8Slot("mono", styleNames[i], path); s != nil {
			fs.mono[i] = s
		} else {
			// Courier keeps code monospaced; characters outside
			// Windows-1252 still reach a UTF-8 body font per rune.
			fs.mono[i] = &fontSlot{key: fontKey{"courier", styleNames[i]}}
		}
	}
	if regular != nil {
		for i, p := range ff.Fallbacks {
			if s := utf8Slot("fallback"+string(rune('a'+i%26))+strings.Repeat("x", i/26), "", p); s != nil {
				fs.fallbacks = append(fs.fallbacks, s)
			}
		}
	}
	return fs
}

// utf8 reports whether body text can hold more than Windows-1252.
func (fs *fontSet) utf8() bool { return fs.body[0].utf8 }

// pick returns the slot that draws r in the given style and the rune to
// draw, which is a replacement when no font has r.
func (fs *fontSet) pick(r rune, bold, italic, mono bool) (*fontSlot, rune) {
	var want *fontSlot
	if mono {
		want = fs.mono[styleIndex(bold, false)]
	} else {
		want = fs.body[styleIndex(bold, italic)]
	}
	if want.covers(r) {
		return want, r
	}
	if alt := fs.body[styleIndex(bold, italic)]; alt.covers(r) {
		return alt, r
	}
	if fs.body[0].covers(r) {
		return fs.body[0], r
	}
	for _, f := range fs.fallbacks {
		if f.covers(r) {
			return f, r
		}
	}
	// Nothing has it: U+FFFD where the font draws it, else '?', so the
	// reader sees that something was there.
	if want.covers('\uFFFD') {
		return want, '\uFFFD'
	}
	return want, '?'
}

// use selects slot s at size pt, embedding a UTF-8 font on first use.
func (fs *fontSet) use(s *fontSlot, size float64) {
	if s.utf8 && !s.added {
		// A private copy: fpdf writes into the buffer it is given (its
		// subsetter appends to slices of the font data), and the cached
		// bytes are shared by every document in the process.
		fs.doc.AddUTF8FontFromBytes(s.key.family, s.key.style, bytes.Clone(s.face.data))
		s.added = true
	}
	fs.doc.SetFont(s.key.family, s.key.style, size)
}

// encode converts text for slot s: unchanged for UTF-8 fonts, bytes of
// Windows-1252 for core fonts (pick already guaranteed every rune fits).
func (fs *fontSet) encode(s *fontSlot, text string) string {
	if s.utf8 {
		return text
	}
	b := make([]byte, 0, len(text))
	for _, r := range text {
		c, ok := cp1252Byte(r)
		if !ok {
			c = '?'
		}
		b = append(b, c)
	}
	return string(b)
}

// width measures text in slot s at size pt.
func (fs *fontSet) width(s *fontSlot, size float64, text string) float64 {
	fs.use(s, size)
	return fs.doc.GetStringWidth(fs.encode(s, text))
}

// cp1252High maps the printable Windows-1252 bytes 0x80-0x9F, the only
// range where it differs from Latin-1.
var cp1252High = map[rune]byte{
	0x20AC: 0x80, 0x201A: 0x82, 0x0192: 0x83, 0x201E: 0x84, 0x2026: 0x85,
	0x2020: 0x86, 0x2021: 0x87, 0x02C6: 0x88, 0x2030: 0x89, 0x0160: 0x8A,
	0x2039: 0x8B, 0x0152: 0x8C, 0x017D: 0x8E, 0x2018: 0x91, 0x2019: 0x92,
	0x201C: 0x93, 0x201D: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97,
	0x02DC: 0x98, 0x2122: 0x99, 0x0161: 0x9A, 0x203A: 0x9B, 0x0153: 0x9C,
	0x017E: 0x9E, 0x0178: 0x9F,
}

// cp1252Byte maps a printable rune to its Windows-1252 byte.
func cp1252Byte(r rune) (byte, bool) {
	switch {
	case r >= 0x20 && r < 0x7F, r >= 0xA0 && r <= 0xFF:
		return byte(r), true
	case r == utf8.RuneError:
		return 0, false
	}
	b, ok := cp1252High[r]
	return b, ok
}
