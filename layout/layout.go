package layout

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Kind is how a new pane is placed: beside its target, below it, or in a tab
// of its own. Left and Up are Directions for MoveFocus only; they are not
// layouts, and Normalize turns them into Tab like any other unknown value.
type Kind string

const (
	Right Kind = "right" // split the target side by side, the new pane on the right
	Down  Kind = "down"  // split the target stacked, the new pane below
	Tab   Kind = "tab"   // open a new tab
	Left  Kind = "left"  // a direction for MoveFocus, not a layout
	Up    Kind = "up"    // a direction for MoveFocus, not a layout
)

// Direction is a way to move focus: Left, Right, Up or Down. It shares Kind's
// type so that layout.Right and layout.Down mean the same thing in both roles.
type Direction = Kind

// Normalize maps a requested layout to a Kind: exactly "right", "down" or
// "tab" is kept; anything else (empty, "Right", "left", "vertical") is Tab, as
// docs/cli.md says under "Layouts".
func Normalize(s string) Kind {
	switch Kind(s) {
	case Right, Down, Tab:
		return Kind(s)
	}
	return Tab
}

// The soft minimum content size of a pane. 16 columns hold a short shell
// prompt and the start of a command; 4 rows hold a prompt, the line being
// typed and two lines of output. Below that neither a person nor an agent can
// follow a pane, and a tab of its own serves better. With the default
// 200x50 session this still allows 8 panes side by side or 8 stacked; in an
// 80x24 terminal 4 side by side (19 columns) or 4 stacked (4-5 rows).
const (
	MinCols = 16
	MinRows = 4
)

// MaxTabName is the longest tab name SetTabName accepts, in runes.
const MaxTabName = 64

// Errors callers may branch on; every returned error wraps one of these.
var (
	ErrNoSuchPane    = errors.New("no such pane")
	ErrDuplicatePane = errors.New("pane id already in the layout")
	ErrBadPaneID     = errors.New("bad pane id")
	ErrNoSuchTab     = errors.New("no such tab")
	ErrBadTabName    = errors.New("bad tab name")
)

// Rect is a rectangle of cells; X, Y is its top-left cell.
type Rect struct{ X, Y, W, H int }

// Contains reports whether cell x, y lies inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Placement is where one pane goes.
type Placement struct {
	Pane    int
	Frame   Rect // the pane's whole cell: its one-row top border (title bar) plus its content
	Content Rect // Frame minus the top border row: the PTY size is Content.W x Content.H
}

// TabInfo describes one tab for listings and the status line.
type TabInfo struct {
	Index  int
	Name   string // empty unless set with SetTabName
	Panes  []int  // tree order
	Focus  int    // the tab's focused pane
	Zoomed bool   // only Focus is placed, over the whole area
}

// AddResult says where Add put the pane and why, when that differs from what
// was asked.
type AddResult struct {
	Used Kind   // the layout actually used
	Tab  int    // the tab now holding the new pane
	Note string // why Used differs from the request; empty when it does not
}

type tab struct {
	name   string
	root   *node
	focus  int
	zoomed bool
	// arranged is 1 + the index in Arrangements of the arrangement
	// NextArrangement gave the tab last, 0 for none: the next one follows it.
	arranged int
}

// Layout is all the tabs of a session. Use New; the zero value is not ready.
type Layout struct {
	tabs   []*tab
	active int
	// seq and recent order panes by when they last took focus, so MoveFocus
	// can prefer the most recently used neighbour and Remove can hand focus
	// back to the pane used before the removed one, as tmux does.
	seq    uint64
	recent map[int]uint64
}

// New returns an empty layout.
func New() *Layout {
	return &Layout{recent: make(map[int]uint64)}
}

// Len returns the number of panes.
func (l *Layout) Len() int {
	n := 0
	for _, t := range l.tabs {
		n += len(t.root.leaves(nil))
	}
	return n
}

// Panes returns every pane id, tab by tab, each tab in tree order (left to
// right, top to bottom).
func (l *Layout) Panes() []int {
	var ids []int
	for _, t := range l.tabs {
		ids = t.root.leaves(ids)
	}
	return ids
}

// TabOf returns the tab holding pane id.
func (l *Layout) TabOf(id int) (int, bool) {
	for i, t := range l.tabs {
		if t.root.find(id) != nil {
			return i, true
		}
	}
	return 0, false
}

// Tabs describes every tab.
func (l *Layout) Tabs() []TabInfo {
	out := make([]TabInfo, len(l.tabs))
	for i, t := range l.tabs {
		out[i] = TabInfo{Index: i, Name: t.name, Panes: t.root.leaves(nil), Focus: t.focus, Zoomed: t.zoomed}
	}
	return out
}

// ActiveTab returns the index of the active tab (0 when there is none).
func (l *Layout) ActiveTab() int { return l.active }

// Focused returns the focused pane of the active tab, or 0 when the layout is
// empty.
func (l *Layout) Focused() int {
	if len(l.tabs) == 0 {
		return 0
	}
	return l.tabs[l.active].focus
}

// Add places new pane id relative to pane target. The first pane of an empty
// layout always opens tab 0 and target is then ignored. Otherwise target must
// exist; requested is normalized (see Normalize); a Right or Down split that
// would leave either half smaller than MinCols x MinRows content in a w x h
// window opens a tab instead, and AddResult.Note says why. The new pane takes
// focus and its tab becomes active.
func (l *Layout) Add(target, id int, requested string, w, h int) (AddResult, error) {
	return l.add(target, id, requested, w, h, true)
}

// AddUnfocused is Add leaving the focus where it is: the active tab stays
// active, the split tab keeps its focused pane, and the new pane ranks as
// the least recently used, so removing the focused pane hands focus back to
// the one used before it, not to a pane the person never went to (as
// tmux's split-window -d). A split of a zoomed tab unzooms it, as Add does,
// so that the new pane shows.
func (l *Layout) AddUnfocused(target, id int, requested string, w, h int) (AddResult, error) {
	return l.add(target, id, requested, w, h, false)
}

func (l *Layout) add(target, id int, requested string, w, h int, focus bool) (AddResult, error) {
	if id <= 0 {
		return AddResult{}, fmt.Errorf("%w: pane id %d must be a positive integer", ErrBadPaneID, id)
	}
	if _, ok := l.TabOf(id); ok {
		return AddResult{}, fmt.Errorf("%w: pane %d already exists (panes: %s)", ErrDuplicatePane, id, l.paneList())
	}
	kind := Normalize(requested)
	var note string
	if string(kind) != requested {
		if requested == "" {
			note = "no layout given; used tab"
		} else {
			note = fmt.Sprintf("unknown layout %q (allowed: right, down, tab); used tab", requested)
		}
	}
	if len(l.tabs) == 0 {
		if kind != Tab {
			note = fmt.Sprintf("no pane to split %s; opened the first tab", kind)
		}
		return l.addTab(id, note), nil
	}
	ti, ok := l.TabOf(target)
	if !ok {
		return AddResult{}, fmt.Errorf("%w: pane %d does not exist (panes: %s)", ErrNoSuchPane, target, l.paneList())
	}
	newTab := l.addTab
	if !focus {
		newTab = l.addTabBehind
	}
	if kind == Tab {
		return newTab(id, note), nil
	}
	t := l.tabs[ti]
	leaf := t.root.find(target)
	old := *leaf
	// Split in place, measure, and undo when the halves are too small: the
	// exact placement code decides, so the check can never disagree with
	// what Place will later draw.
	*leaf = node{split: kind, ratio: 0.5, parent: old.parent,
		a: &node{pane: target}, b: &node{pane: id}}
	leaf.a.parent, leaf.b.parent = leaf, leaf
	if why := tooSmall(t.root, kind, target, id, w, h); why != "" {
		*leaf = old
		return newTab(id, why), nil
	}
	t.zoomed = false
	if focus {
		l.active = ti
		l.focusLocked(t, id)
	}
	return AddResult{Used: kind, Tab: ti, Note: note}, nil
}

// tooSmall lays out a tab whose pane target was just split and says why the
// split is refused, or "" when both halves keep the minimum content size.
func tooSmall(root *node, kind Kind, target, id, w, h int) string {
	why := tooSmallFor(root, kind, target, id, fmt.Sprintf("the new pane %d", id), w, h)
	if why == "" {
		return ""
	}
	return why + "; opened a tab instead"
}

// tooSmallFor is tooSmall's reason without what Add does about it; newName
// names the new pane.
func tooSmallFor(root *node, kind Kind, target, id int, newName string, w, h int) string {
	var ps [2]Placement
	for _, p := range place(root, w, h) {
		switch p.Pane {
		case target:
			ps[0] = p
		case id:
			ps[1] = p
		}
	}
	for _, p := range ps {
		who := newName
		if p.Pane == target {
			who = fmt.Sprintf("pane %d", target)
		}
		if p.Content.W < MinCols {
			return fmt.Sprintf("%s split of pane %d would leave %s %d columns wide, narrower than the minimum %d",
				kind, target, who, p.Content.W, MinCols)
		}
		if p.Content.H < MinRows {
			return fmt.Sprintf("%s split of pane %d would leave %s %d rows high, lower than the minimum %d",
				kind, target, who, p.Content.H, MinRows)
		}
	}
	return ""
}

func (l *Layout) addTab(id int, note string) AddResult {
	t := &tab{root: &node{pane: id}}
	l.tabs = append(l.tabs, t)
	l.active = len(l.tabs) - 1
	l.focusLocked(t, id)
	return AddResult{Used: Tab, Tab: l.active, Note: note}
}

// addTabBehind is addTab leaving the active tab and the focus as they are.
func (l *Layout) addTabBehind(id int, note string) AddResult {
	l.tabs = append(l.tabs, &tab{root: &node{pane: id}, focus: id})
	return AddResult{Used: Tab, Tab: len(l.tabs) - 1, Note: note}
}

// focusLocked makes id the focus of t and the most recently used pane. The
// name follows the project's convention for helpers that assume the caller
// owns the layout (it has no lock of its own; the server's owner goroutine
// is the lock).
func (l *Layout) focusLocked(t *tab, id int) {
	if t.focus != id {
		t.zoomed = false
	}
	t.focus = id
	l.seq++
	l.recent[id] = l.seq
}

// Remove takes pane id out of its tab. Its sibling subtree takes back the
// space of their split; a tab left empty is removed and the tabs after it
// move down one index. When id had focus, the tab's most recently focused
// remaining pane gets it.
func (l *Layout) Remove(id int) error {
	ti, ok := l.TabOf(id)
	if !ok {
		return fmt.Errorf("%w: pane %d does not exist (panes: %s)", ErrNoSuchPane, id, l.paneList())
	}
	delete(l.recent, id)
	t := l.tabs[ti]
	leaf := t.root.find(id)
	if leaf.parent == nil {
		l.tabs = append(l.tabs[:ti], l.tabs[ti+1:]...)
		if l.active > ti || l.active >= len(l.tabs) {
			l.active--
		}
		if l.active < 0 {
			l.active = 0
		}
		return nil
	}
	p := leaf.parent
	sib := p.a
	if sib == leaf {
		sib = p.b
	}
	// The sibling replaces the split in its grandparent, so it fills the
	// split's whole rectangle.
	sib.parent = p.parent
	switch {
	case p.parent == nil:
		t.root = sib
	case p.parent.a == p:
		p.parent.a = sib
	default:
		p.parent.b = sib
	}
	if t.root.split == "" {
		t.zoomed = false // one pane left: nothing to zoom over
	}
	if t.focus == id {
		best, bestSeq := 0, uint64(0)
		for _, pid := range t.root.leaves(nil) {
			if s := l.recent[pid]; best == 0 || s > bestSeq {
				best, bestSeq = pid, s
			}
		}
		t.focus = best
		t.zoomed = false
	}
	return nil
}

// SelectTab makes tab i active.
func (l *Layout) SelectTab(i int) error {
	if err := l.checkTab(i); err != nil {
		return err
	}
	l.active = i
	return nil
}

// NextTab makes the next tab active, wrapping from the last to the first.
func (l *Layout) NextTab() {
	if len(l.tabs) > 0 {
		l.active = (l.active + 1) % len(l.tabs)
	}
}

// PrevTab makes the previous tab active, wrapping from the first to the last.
func (l *Layout) PrevTab() {
	if len(l.tabs) > 0 {
		l.active = (l.active + len(l.tabs) - 1) % len(l.tabs)
	}
}

// Focus focuses pane id and makes its tab active. Focusing another pane of
// a zoomed tab unzooms it.
func (l *Layout) Focus(id int) error {
	ti, ok := l.TabOf(id)
	if !ok {
		return fmt.Errorf("%w: pane %d does not exist (panes: %s)", ErrNoSuchPane, id, l.paneList())
	}
	l.active = ti
	l.focusLocked(l.tabs[ti], id)
	return nil
}

// ToggleZoom zooms the focused pane of the active tab (only it is placed,
// over the whole area) or unzooms it. A tab of one pane is never zoomed:
// there is nothing to hide.
func (l *Layout) ToggleZoom() {
	if len(l.tabs) == 0 {
		return
	}
	t := l.tabs[l.active]
	if t.root.split == "" {
		t.zoomed = false
		return
	}
	t.zoomed = !t.zoomed
}

// SetTabName names tab i; an empty name clears it. Names are at most
// MaxTabName runes of printable text, since the status line shows them.
func (l *Layout) SetTabName(i int, name string) error {
	if err := l.checkTab(i); err != nil {
		return err
	}
	if err := checkName(name); err != nil {
		return err
	}
	l.tabs[i].name = name
	return nil
}

func checkName(name string) error {
	n := 0
	for _, r := range name {
		n++
		if r == 0xFFFD || !unicode.IsPrint(r) && r != ' ' {
			return fmt.Errorf("%w: %q holds a control or invalid character (allowed: printable text)", ErrBadTabName, name)
		}
	}
	if n > MaxTabName {
		return fmt.Errorf("%w: %d characters long (allowed: at most %d)", ErrBadTabName, n, MaxTabName)
	}
	return nil
}

func (l *Layout) checkTab(i int) error {
	if len(l.tabs) == 0 {
		return fmt.Errorf("%w: tab %d does not exist (there are no tabs)", ErrNoSuchTab, i)
	}
	if i < 0 || i >= len(l.tabs) {
		return fmt.Errorf("%w: tab %d does not exist (tabs: 0-%d)", ErrNoSuchTab, i, len(l.tabs)-1)
	}
	return nil
}

// paneList renders the existing pane ids, sorted, for error messages.
func (l *Layout) paneList() string {
	ids := l.Panes()
	if len(ids) == 0 {
		return "none"
	}
	sort.Ints(ids)
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}

// Place returns the placements of tab's panes in a w x h area, in tree order;
// nil for a tab that does not exist. A zoomed tab places only its focused
// pane, over the whole area.
func (l *Layout) Place(tabIndex, w, h int) []Placement {
	if tabIndex < 0 || tabIndex >= len(l.tabs) {
		return nil
	}
	t := l.tabs[tabIndex]
	if t.zoomed {
		return []Placement{leafPlacement(t.focus, Rect{0, 0, max(w, 1), max(h, 2)})}
	}
	return place(t.root, w, h)
}

// PaneAt returns the pane whose Frame holds cell x, y of tab laid out in a
// w x h area (for a mouse click); false on a separator or outside.
func (l *Layout) PaneAt(tabIndex, x, y, w, h int) (int, bool) {
	for _, p := range l.Place(tabIndex, w, h) {
		if p.Frame.Contains(x, y) {
			return p.Pane, true
		}
	}
	return 0, false
}
