package pdf

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Page geometry and type sizes of the built-in renderer, in points.
const (
	marginX      = 51.0 // 18 mm, matching the HTML stylesheet
	marginY      = 57.0 // 20 mm
	bodySize     = 10.5
	codeSize     = 9.0
	titleSize    = 24.0
	blockGap     = 7.0
	tightGap     = 2.0
	listIndent   = 18.0
	quoteIndent  = 14.0
	codePadX     = 6.0
	codePadY     = 5.0
	cellPadX     = 4.0
	cellPadY     = 3.0
	headingAbove = 6.0
)

var (
	colorText  = [3]int{17, 17, 17}
	colorQuote = [3]int{68, 68, 68}
	colorLink  = [3]int{26, 79, 160}
	colorMuted = [3]int{90, 90, 90}
)

var headingSizes = [7]float64{0, 20, 16, 13.5, 12, 11, 10.5}

func renderBuiltinFile(ctx context.Context, markdown, title, out string) error {
	err := writeAtomic(out, func(w io.Writer) error {
		return renderBuiltin(ctx, markdown, title, filepath.Dir(out), w)
	})
	if err != nil {
		return fmt.Errorf("builtin PDF renderer: %w", err)
	}
	return nil
}

// renderer is the state of one built-in render: the fpdf document, the
// current content box and vertical position, and decorations that must be
// repeated on every line (block-quote bars) or drawn on the next line only
// (a list item's marker).
type renderer struct {
	ctx     context.Context
	doc     *fpdf.Fpdf
	fonts   *fontSet
	src     []byte
	left    float64
	right   float64
	y       float64
	top     float64
	bottom  float64
	color   [3]int
	baseDir string         // relative image paths resolve from here
	images  int            // images registered so far, for unique names
	bars    []float64      // x of each enclosing block quote's bar
	anchors map[string]int // heading id -> fpdf internal link, for "#id" links
	marker  *listMarker
	// fresh is true at the start of a container (document, quote, list
	// item), where a block takes no space above it.
	fresh bool
}

type listMarker struct {
	text  string
	right float64 // the marker ends here, left of the item's text column
}

// renderBuiltin lays out markdown with fpdf and writes the PDF to w.
func renderBuiltin(ctx context.Context, markdown, title, baseDir string, w io.Writer) (err error) {
	defer func() {
		// fpdf panics on some inputs (it indexes font tables unchecked);
		// a tool call must get an error, never take the server down.
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error while laying out the document: %v", p)
		}
	}()
	src := []byte(markdown)
	root := newMarkdown().Parser().Parse(text.NewReader(src))

	doc := fpdf.New("P", "pt", "A4", "")
	doc.SetAutoPageBreak(false, 0)
	doc.SetCellMargin(0)
	doc.SetMargins(marginX, marginY, marginX)
	doc.SetCreator("melmux", false)
	if title != "" {
		doc.SetTitle(title, true)
	}
	pageW, pageH := doc.GetPageSize()
	r := &renderer{
		ctx: ctx, doc: doc, src: src, baseDir: baseDir,
		fonts: newFontSet(doc, systemFonts()),
		left:  marginX, right: pageW - marginX,
		top: marginY, bottom: pageH - marginY,
		color: colorText, fresh: true,
	}
	r.collectAnchors(root)
	r.newPage()
	if title != "" {
		r.heading([]span{{text: title, style: r.base(titleSize, true)}}, titleSize, true, "")
	}
	if err := r.blocks(root); err != nil {
		return err
	}
	if err := doc.Error(); err != nil {
		return fmt.Errorf("lay out PDF: %w", err)
	}
	if err := doc.Output(w); err != nil {
		return fmt.Errorf("write PDF: %w", err)
	}
	return nil
}

func (r *renderer) base(size float64, bold bool) textStyle {
	return textStyle{size: size, bold: bold, color: r.color}
}

func (r *renderer) newPage() {
	r.doc.AddPage()
	r.y = r.top
}

// beginLine reserves a line of height h, breaking the page when it does not
// fit, and draws the decorations that belong to every line. It returns the
// line's top.
func (r *renderer) beginLine(h float64) float64 {
	if r.y+h > r.bottom && r.y > r.top {
		r.newPage()
	}
	y := r.y
	r.drawBars(y, h)
	if r.marker != nil {
		m := r.marker
		r.marker = nil
		st := r.base(bodySize, false)
		ws := r.fonts.words([]span{{text: m.text, style: st}})
		lines := r.fonts.breakLines(ws, listIndent*3, bodySize)
		if len(lines) > 0 {
			// Centre the marker on a text line; on a tall box (an image,
			// a table row) keep it level with the first line instead.
			box := h
			if box > 2*bodySize*lineSpacing {
				box = bodySize*lineSpacing + 2*cellPadY
			}
			l := lines[0]
			r.drawLine(l, m.right-l.w, y, box)
		}
	}
	r.y += h
	return y
}

// gap adds vertical space between blocks; none at the top of a page or of
// a container.
func (r *renderer) gap(h float64) {
	if r.fresh {
		r.fresh = false
		return
	}
	if r.y <= r.top {
		return
	}
	if r.y+h > r.bottom {
		r.newPage()
		return
	}
	r.drawBars(r.y, h)
	r.y += h
}

func (r *renderer) drawBars(y, h float64) {
	if len(r.bars) == 0 {
		return
	}
	r.doc.SetFillColor(200, 200, 200)
	for _, x := range r.bars {
		r.doc.Rect(x, y, 2.5, h, "F")
	}
}

// drawLine draws one laid-out line with its left edge at x, top at y,
// vertically centred in a box of height h.
func (r *renderer) drawLine(l line, x, y, h float64) {
	for _, w := range l.words {
		for _, p := range w.pieces {
			r.drawPiece(p, x, y, h)
			x += p.w
		}
	}
}

func (r *renderer) drawPiece(p piece, x, y, h float64) {
	st := p.style
	r.fonts.use(p.slot, st.size)
	r.doc.SetTextColor(st.color[0], st.color[1], st.color[2])
	if st.shade {
		r.doc.SetFillColor(238, 238, 238)
		r.doc.Rect(x, y+(h-st.size*1.25)/2, p.w, st.size*1.25, "F")
	}
	r.doc.SetXY(x, y)
	internal, external := 0, st.link
	if strings.HasPrefix(st.link, "#") {
		// Only headings are anchors; a link to anything else goes nowhere.
		internal, external = r.anchors[st.link[1:]], ""
	}
	r.doc.CellFormat(p.w, h, r.fonts.encode(p.slot, p.text), "", 0, "L", false, internal, external)
	baseline := y + h/2 + 0.3*st.size
	if st.underline || st.strike {
		r.doc.SetDrawColor(st.color[0], st.color[1], st.color[2])
		r.doc.SetLineWidth(max(0.4, st.size/20))
		if st.underline {
			r.doc.Line(x, baseline+st.size*0.12, x+p.w, baseline+st.size*0.12)
		}
		if st.strike {
			r.doc.Line(x, baseline-st.size*0.3, x+p.w, baseline-st.size*0.3)
		}
	}
}

// flow lays out inline spans in the current box and draws them.
func (r *renderer) flow(spans []span, size float64, align string) {
	words := r.fonts.words(spans)
	width := r.right - r.left
	for _, l := range r.fonts.breakLines(words, width, size) {
		y := r.beginLine(l.h)
		x := r.left
		switch align {
		case "C":
			x += (width - l.w) / 2
		case "R":
			x += width - l.w
		}
		r.drawLine(l, x, y, l.h)
	}
}

// blocks renders the block children of n.
func (r *renderer) blocks(n ast.Node) error {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("render PDF: %w", err)
		}
		if err := r.block(c); err != nil {
			return err
		}
	}
	return nil
}

func (r *renderer) block(n ast.Node) error {
	switch n := n.(type) {
	case *ast.Paragraph:
		if img := soleImage(n, r.src); img != nil && r.imageBlock(img) {
			return nil
		}
		r.gap(blockGap)
		r.flow(r.inlines(n, r.base(bodySize, false)), bodySize, "L")
	case *ast.TextBlock:
		if img := soleImage(n, r.src); img != nil && r.imageBlock(img) {
			return nil
		}
		r.gap(tightGap)
		r.flow(r.inlines(n, r.base(bodySize, false)), bodySize, "L")
	case *ast.Heading:
		level := min(max(n.Level, 1), 6)
		size := headingSizes[level]
		id := ""
		if v, ok := n.AttributeString("id"); ok {
			if b, ok := v.([]byte); ok {
				id = string(b)
			}
		}
		r.heading(r.inlines(n, r.base(size, true)), size, level <= 2, id)
	case *ast.ThematicBreak:
		r.gap(blockGap)
		y := r.beginLine(10)
		r.doc.SetDrawColor(187, 187, 187)
		r.doc.SetLineWidth(0.8)
		r.doc.Line(r.left, y+5, r.right, y+5)
	case *ast.CodeBlock:
		r.codeBlock(n)
	case *ast.FencedCodeBlock:
		r.codeBlock(n)
	case *ast.Blockquote:
		r.gap(blockGap)
		saved, savedColor := r.left, r.color
		r.bars = append(r.bars, r.left)
		r.left += quoteIndent
		r.color = colorQuote
		r.fresh = true
		err := r.blocks(n)
		r.bars = r.bars[:len(r.bars)-1]
		r.left, r.color = saved, savedColor
		r.fresh = false
		return err
	case *ast.List:
		return r.list(n)
	case *extast.Table:
		r.table(n)
	case *ast.HTMLBlock:
		// Raw HTML is not rendered (see the package comment).
	default:
		// Unknown containers (extensions added later): render their
		// children so no text is lost.
		return r.blocks(n)
	}
	return nil
}

// collectAnchors allocates an internal link for every heading id before
// drawing starts, since a link may point at a heading further down.
func (r *renderer) collectAnchors(root ast.Node) {
	r.anchors = map[string]int{}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			if v, ok := h.AttributeString("id"); ok {
				if b, ok := v.([]byte); ok {
					if _, dup := r.anchors[string(b)]; !dup {
						r.anchors[string(b)] = r.doc.AddLink()
					}
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// heading draws a heading, moving it to the next page when it would
// otherwise sit alone at the bottom of this one.
func (r *renderer) heading(spans []span, size float64, rule bool, id string) {
	if !r.fresh || r.y > r.top {
		r.gap(blockGap + headingAbove)
	}
	r.fresh = false
	need := size*lineSpacing + 2*bodySize*lineSpacing
	if r.y+need > r.bottom && r.y > r.top {
		r.newPage()
	}
	if link, ok := r.anchors[id]; ok {
		r.doc.SetLink(link, r.y, r.doc.PageNo())
	}
	r.flow(spans, size, "L")
	if rule {
		y := r.beginLine(5)
		r.doc.SetDrawColor(200, 200, 200)
		r.doc.SetLineWidth(0.7)
		r.doc.Line(r.left, y+2, r.right, y+2)
	}
}

// codeLines returns the lines of a code block without their newlines.
func (r *renderer) codeLines(n ast.Node) []string {
	lines := n.Lines()
	out := make([]string, 0, lines.Len())
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		s := string(seg.Value(r.src))
		s = strings.TrimRight(s, "\r\n")
		out = append(out, expandTabs(s))
	}
	return out
}

func (r *renderer) codeBlock(n ast.Node) {
	r.gap(blockGap)
	st := textStyle{mono: true, size: codeSize, color: colorText}
	width := r.right - r.left
	fill := func(y, h float64) {
		r.doc.SetFillColor(243, 243, 243)
		r.doc.Rect(r.left, y, width, h, "F")
	}
	// A list marker belongs beside the first line of code, not the padding.
	marker := r.marker
	r.marker = nil
	fill(r.beginLine(codePadY), codePadY)
	r.marker = marker
	for _, src := range r.codeLines(n) {
		words := r.fonts.codeWords(src, st)
		for _, l := range r.fonts.breakLines(words, width-2*codePadX, codeSize) {
			y := r.beginLine(l.h)
			fill(y, l.h)
			r.drawLine(l, r.left+codePadX, y, l.h)
		}
	}
	fill(r.beginLine(codePadY), codePadY)
}

// list renders an ordered or unordered list; nesting depth picks the
// bullet so levels stay distinguishable.
func (r *renderer) list(n *ast.List) error {
	// A list nested in a tight item hugs the item's text.
	if outer, ok := n.Parent().(*ast.ListItem); ok {
		if l, ok := outer.Parent().(*ast.List); ok && l.IsTight {
			r.gap(tightGap)
		} else {
			r.gap(blockGap)
		}
	} else {
		r.gap(blockGap)
	}
	depth := 0
	for p := n.Parent(); p != nil; p = p.Parent() {
		if _, ok := p.(*ast.List); ok {
			depth++
		}
	}
	num := n.Start
	first := true
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("render PDF: %w", err)
		}
		if !first {
			if n.IsTight {
				r.gap(tightGap)
			} else {
				r.gap(blockGap - 2)
			}
		}
		first = false
		marker := r.bullet(depth)
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + string(n.Marker)
			num++
		}
		saved := r.left
		r.left += listIndent
		r.marker = &listMarker{text: marker, right: r.left - 5}
		r.fresh = true
		err := r.blocks(item)
		if r.marker != nil {
			// An empty item still shows its marker.
			r.beginLine(bodySize * lineSpacing)
		}
		r.left = saved
		r.fresh = false
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *renderer) bullet(depth int) string {
	choices := []string{"•", "◦", "▪"}
	if !r.fonts.utf8() {
		choices = []string{"•", "–", "·"}
	}
	b := choices[depth%len(choices)]
	for _, c := range b {
		if slot, got := r.fonts.pick(c, false, false, false); got != c || !slot.covers(c) {
			return "-"
		}
	}
	return b
}

// inlines collects the inline content of n as styled spans.
func (r *renderer) inlines(n ast.Node, st textStyle) []span {
	var out []span
	r.collect(n, st, &out)
	return out
}

func (r *renderer) collect(n ast.Node, st textStyle, out *[]span) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			*out = append(*out, span{text: string(c.Value(r.src)), style: st})
			if c.HardLineBreak() {
				*out = append(*out, span{hard: true})
			} else if c.SoftLineBreak() {
				*out = append(*out, span{text: " ", style: st})
			}
		case *ast.String:
			*out = append(*out, span{text: string(c.Value), style: st})
		case *ast.CodeSpan:
			code := st
			code.mono, code.shade, code.italic = true, true, false
			code.size = st.size * 0.9
			var b strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				switch t := t.(type) {
				case *ast.Text:
					b.Write(t.Value(r.src))
				case *ast.String:
					b.Write(t.Value)
				}
			}
			*out = append(*out, span{text: b.String(), style: code})
		case *ast.Emphasis:
			em := st
			if c.Level >= 2 {
				em.bold = true
			} else {
				em.italic = true
			}
			r.collect(c, em, out)
		case *extast.Strikethrough:
			s := st
			s.strike = true
			r.collect(c, s, out)
		case *ast.Link:
			dest := string(c.Destination)
			ls := st
			ls.link, ls.underline, ls.color = dest, true, colorLink
			var inner []span
			r.collect(c, ls, &inner)
			*out = append(*out, inner...)
			// Paper has no hover: show where the link goes unless the
			// text already says it.
			label := strings.TrimSpace(plainText(inner))
			if dest != "" && !strings.HasPrefix(dest, "#") && label != dest &&
				strings.TrimPrefix(dest, "mailto:") != label {
				ms := st
				ms.color = colorMuted
				*out = append(*out, span{text: " (" + dest + ")", style: ms})
			}
		case *ast.AutoLink:
			ls := st
			url := string(c.URL(r.src))
			ls.link, ls.underline, ls.color = url, true, colorLink
			*out = append(*out, span{text: string(c.Label(r.src)), style: ls})
		case *ast.Image:
			is := st
			is.italic, is.color = true, colorMuted
			var alt []span
			r.collect(c, is, &alt)
			label := strings.TrimSpace(plainText(alt))
			if label == "" {
				label = "image"
			}
			text := "[" + label + "]"
			if dest := string(c.Destination); dest != "" {
				text += " (" + dest + ")"
			}
			*out = append(*out, span{text: text, style: is})
		case *extast.TaskCheckBox:
			box := "☐ "
			if c.IsChecked {
				box = "☑ "
			}
			if slot, _ := r.fonts.pick([]rune(box)[0], st.bold, st.italic, false); !slot.covers([]rune(box)[0]) {
				box = "[ ] "
				if c.IsChecked {
					box = "[x] "
				}
			}
			*out = append(*out, span{text: box, style: st})
		case *ast.RawHTML:
			// Not rendered (see the package comment).
		default:
			r.collect(c, st, out)
		}
	}
}

// tableCell is a laid-out-ready table cell.
type tableCell struct {
	words []word
	align string
}

// table renders a GFM table. Column widths come from the content: each
// column gets its natural (unwrapped) width when everything fits, else its
// longest word plus a share of the remaining width proportional to how
// much it would like to grow. A row too tall for the rest of the page
// continues on the next, and the header row is repeated there.
func (r *renderer) table(t *extast.Table) {
	r.gap(blockGap)
	var rows [][]tableCell
	var header []tableCell
	cols := 0
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		_, isHeader := row.(*extast.TableHeader)
		var cells []tableCell
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			tc, ok := c.(*extast.TableCell)
			if !ok {
				continue
			}
			align := "L"
			switch tc.Alignment {
			case extast.AlignCenter:
				align = "C"
			case extast.AlignRight:
				align = "R"
			}
			words := r.fonts.words(r.inlines(tc, r.base(bodySize, isHeader)))
			cells = append(cells, tableCell{words: words, align: align})
		}
		if isHeader {
			header = cells
		}
		rows = append(rows, cells)
		cols = max(cols, len(cells))
	}
	if cols == 0 {
		return
	}
	natural := make([]float64, cols)
	minimum := make([]float64, cols)
	for _, row := range rows {
		for i, c := range row {
			n, m := naturalWidth(c.words)
			natural[i] = max(natural[i], n+2*cellPadX)
			minimum[i] = max(minimum[i], m+2*cellPadX)
		}
	}
	widths := columnWidths(natural, minimum, r.right-r.left)
	// Keep the header with at least one line of the first body row.
	if need := 2 * (2*cellPadY + bodySize*lineSpacing); r.y+need > r.bottom && r.y > r.top {
		r.newPage()
	}
	for i, row := range rows {
		isHeader := header != nil && i == 0
		repeat := header
		if isHeader {
			repeat = nil
		}
		r.tableRow(row, widths, isHeader, repeat)
	}
}

// columnWidths fits columns into avail: natural widths when they fit,
// else minimum widths plus the rest shared by wish to grow, else minimum
// widths scaled down (words are then cut between characters).
func columnWidths(natural, minimum []float64, avail float64) []float64 {
	n := len(natural)
	widths := make([]float64, n)
	sumNat, sumMin := 0.0, 0.0
	for i := range natural {
		minimum[i] = min(minimum[i], natural[i])
		sumNat += natural[i]
		sumMin += minimum[i]
	}
	switch {
	case sumNat <= avail:
		copy(widths, natural)
	case sumMin >= avail:
		for i := range widths {
			widths[i] = minimum[i] * avail / sumMin
		}
	default:
		extra := avail - sumMin
		want := sumNat - sumMin
		for i := range widths {
			widths[i] = minimum[i] + extra*(natural[i]-minimum[i])/want
		}
	}
	// A floor keeps a column of empty cells visible and drawable.
	for i := range widths {
		widths[i] = max(widths[i], 2*cellPadX+4)
	}
	return widths
}

// tableRow draws one row, in slices when it does not fit the page; after a
// page break, repeat (the header row, if any) is drawn first.
func (r *renderer) tableRow(cells []tableCell, widths []float64, isHeader bool, repeat []tableCell) {
	cols := len(widths)
	laid := make([][]line, cols)
	for i := 0; i < cols; i++ {
		var words []word
		if i < len(cells) {
			words = cells[i].words
		}
		laid[i] = r.fonts.breakLines(words, widths[i]-2*cellPadX, bodySize)
	}
	next := make([]int, cols)
	for {
		if r.y+2*cellPadY+bodySize*lineSpacing > r.bottom && r.y > r.top {
			r.newPage()
			if repeat != nil {
				r.tableRow(repeat, widths, true, nil)
			}
		}
		avail := r.bottom - r.y - 2*cellPadY
		sliceH := 0.0
		end := make([]int, cols)
		done := true
		for i := range laid {
			h := 0.0
			j := next[i]
			// At least one line per slice, so a line taller than a page
			// still makes progress.
			for j < len(laid[i]) && (h+laid[i][j].h <= avail || j == next[i]) {
				h += laid[i][j].h
				j++
			}
			end[i] = j
			sliceH = max(sliceH, h)
			if j < len(laid[i]) {
				done = false
			}
		}
		rowH := sliceH + 2*cellPadY
		y := r.beginLine(rowH)
		x := r.left
		for i := range laid {
			if isHeader {
				r.doc.SetFillColor(235, 235, 235)
				r.doc.Rect(x, y, widths[i], rowH, "F")
			}
			r.doc.SetDrawColor(187, 187, 187)
			r.doc.SetLineWidth(0.6)
			r.doc.Rect(x, y, widths[i], rowH, "D")
			align := "L"
			if i < len(cells) {
				align = cells[i].align
			}
			ly := y + cellPadY
			for _, l := range laid[i][next[i]:end[i]] {
				lx := x + cellPadX
				switch align {
				case "C":
					lx += (widths[i] - 2*cellPadX - l.w) / 2
				case "R":
					lx += widths[i] - 2*cellPadX - l.w
				}
				r.drawLine(l, lx, ly, l.h)
				ly += l.h
			}
			x += widths[i]
		}
		copy(next, end)
		if done {
			return
		}
		r.newPage()
		if repeat != nil {
			r.tableRow(repeat, widths, true, nil)
		}
	}
}
