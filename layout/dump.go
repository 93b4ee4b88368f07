package layout

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Dump returns a one-line text form of every tab: the active tab, then per
// tab its name, focused pane, zoom and split tree with ratios and pane ids:
//
//	active=0; tab "" focus=3 right(0.5 1 down(0.5 2 3)); tab "logs" focus=4 zoomed 4
//
// Grammar (spaces between tokens may be repeated):
//
//	layout := "active=" INT { ";" tab }
//	tab    := "tab" QUOTED "focus=" INT [ "zoomed" ] tree
//	tree   := INT | ( "right" | "down" ) "(" RATIO tree tree ")"
//
// QUOTED is a Go double-quoted string; RATIO is the first child's share, a
// decimal strictly between 0 and 1, written so that it reads back exactly.
// Focus recency is not part of it.
func (l *Layout) Dump() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "active=%d", l.active)
	for _, t := range l.tabs {
		fmt.Fprintf(&sb, "; tab %s focus=%d ", strconv.Quote(t.name), t.focus)
		if t.zoomed {
			sb.WriteString("zoomed ")
		}
		dumpTree(&sb, t.root)
	}
	return sb.String()
}

func dumpTree(sb *strings.Builder, n *node) {
	if n.split == "" {
		sb.WriteString(strconv.Itoa(n.pane))
		return
	}
	sb.WriteString(string(n.split))
	sb.WriteByte('(')
	sb.WriteString(strconv.FormatFloat(n.ratio, 'g', -1, 64))
	sb.WriteByte(' ')
	dumpTree(sb, n.a)
	sb.WriteByte(' ')
	dumpTree(sb, n.b)
	sb.WriteByte(')')
}

// ErrParse is wrapped by every error Parse returns.
var ErrParse = errors.New("bad layout string")

// ParseError says where a layout string went wrong: Pos is the byte offset,
// Expected what the grammar allows there, Found what was there instead.
type ParseError struct {
	Pos      int
	Expected string
	Found    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%v at byte %d: expected %s, found %s", ErrParse, e.Pos, e.Expected, e.Found)
}

func (e *ParseError) Unwrap() error { return ErrParse }

// Parse reads a layout string written by Dump. Besides syntax it checks that
// pane ids are positive and unique, ratios lie strictly between 0 and 1, each
// tab's focus is one of its panes, tab names are valid, and the active tab
// exists.
func Parse(s string) (*Layout, error) {
	p := &parser{s: s}
	l := New()
	p.space()
	if err := p.word("active="); err != nil {
		return nil, err
	}
	activePos := p.pos
	active, err := p.int("the active tab index")
	if err != nil {
		return nil, err
	}
	seen := make(map[int]bool)
	for {
		p.space()
		if p.pos == len(s) {
			break
		}
		if err := p.word(";"); err != nil {
			return nil, err
		}
		t, err := p.tab(seen)
		if err != nil {
			return nil, err
		}
		l.tabs = append(l.tabs, t)
	}
	if active < 0 || active >= max(len(l.tabs), 1) {
		return nil, &ParseError{Pos: activePos, Expected: fmt.Sprintf("an active tab index from 0 to %d", max(len(l.tabs)-1, 0)), Found: strconv.Itoa(active)}
	}
	l.active = active
	// Focus recency starts over: each tab's focus counts as used, the
	// active tab's last so it is the newest.
	for i, t := range l.tabs {
		if i != active {
			l.focusLocked(t, t.focus)
		}
	}
	if len(l.tabs) > 0 {
		l.focusLocked(l.tabs[active], l.tabs[active].focus)
	}
	return l, nil
}

// maxDepth bounds split nesting in Parse so a hostile string cannot recurse
// without end; no window shows panes nested this deep.
const maxDepth = 256

type parser struct {
	s     string
	pos   int
	depth int
}

func (p *parser) space() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

// found describes the input at the current position for an error.
func (p *parser) found() string {
	if p.pos >= len(p.s) {
		return "the end of the string"
	}
	rest := p.s[p.pos:]
	if len(rest) > 12 {
		rest = rest[:12] + "..."
	}
	return strconv.Quote(rest)
}

func (p *parser) fail(expected string) error {
	return &ParseError{Pos: p.pos, Expected: expected, Found: p.found()}
}

func (p *parser) word(w string) error {
	p.space()
	if !strings.HasPrefix(p.s[p.pos:], w) {
		return p.fail(strconv.Quote(w))
	}
	p.pos += len(w)
	return nil
}

func (p *parser) int(what string) (int, error) {
	p.space()
	start := p.pos
	if p.pos < len(p.s) && p.s[p.pos] == '-' {
		p.pos++
	}
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.Atoi(p.s[start:p.pos])
	if err != nil {
		p.pos = start
		return 0, p.fail(what)
	}
	return n, nil
}

func (p *parser) tab(seen map[int]bool) (*tab, error) {
	if err := p.word("tab"); err != nil {
		return nil, err
	}
	p.space()
	namePos := p.pos
	q, err := strconv.QuotedPrefix(p.s[p.pos:])
	if err != nil || q[0] != '"' {
		return nil, p.fail("a double-quoted tab name")
	}
	name, _ := strconv.Unquote(q)
	if err := checkName(name); err != nil {
		return nil, &ParseError{Pos: namePos, Expected: fmt.Sprintf("a tab name of at most %d printable characters", MaxTabName), Found: q}
	}
	p.pos += len(q)
	if err := p.word("focus="); err != nil {
		return nil, err
	}
	focusPos := p.pos
	focus, err := p.int("the focused pane id")
	if err != nil {
		return nil, err
	}
	t := &tab{name: name, focus: focus}
	p.space()
	if strings.HasPrefix(p.s[p.pos:], "zoomed") {
		p.pos += len("zoomed")
		t.zoomed = true
	}
	if t.root, err = p.tree(seen); err != nil {
		return nil, err
	}
	if t.root.find(focus) == nil {
		return nil, &ParseError{Pos: focusPos, Expected: "the focus to be a pane of its tab (" + joinInts(t.root.leaves(nil)) + ")", Found: strconv.Itoa(focus)}
	}
	if t.root.split == "" {
		t.zoomed = false
	}
	return t, nil
}

func (p *parser) tree(seen map[int]bool) (*node, error) {
	p.space()
	rest := p.s[p.pos:]
	for _, k := range []Kind{Right, Down} {
		if !strings.HasPrefix(rest, string(k)+"(") {
			continue
		}
		if p.depth >= maxDepth {
			return nil, p.fail(fmt.Sprintf("splits nested at most %d deep", maxDepth))
		}
		p.pos += len(k) + 1
		p.depth++
		defer func() { p.depth-- }()
		ratio, err := p.ratio()
		if err != nil {
			return nil, err
		}
		n := &node{split: k, ratio: ratio}
		if n.a, err = p.tree(seen); err != nil {
			return nil, err
		}
		if n.b, err = p.tree(seen); err != nil {
			return nil, err
		}
		if err := p.word(")"); err != nil {
			return nil, err
		}
		n.a.parent, n.b.parent = n, n
		return n, nil
	}
	start := p.pos
	id, err := p.int(`a pane id or "right(" or "down("`)
	if err != nil {
		return nil, err
	}
	if id <= 0 {
		return nil, &ParseError{Pos: start, Expected: "a positive pane id", Found: strconv.Itoa(id)}
	}
	if seen[id] {
		return nil, &ParseError{Pos: start, Expected: "a pane id not used before", Found: strconv.Itoa(id) + " again"}
	}
	seen[id] = true
	return &node{pane: id}, nil
}

func (p *parser) ratio() (float64, error) {
	p.space()
	start := p.pos
	for p.pos < len(p.s) && strings.IndexByte("0123456789.eE+-", p.s[p.pos]) >= 0 {
		p.pos++
	}
	r, err := strconv.ParseFloat(p.s[start:p.pos], 64)
	if err != nil || math.IsNaN(r) || r <= 0 || r >= 1 {
		p.pos = start
		return 0, p.fail("a split ratio strictly between 0 and 1")
	}
	return r, nil
}

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}
