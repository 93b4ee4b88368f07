package layout

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Errors the keyboard's pane and tab moves return; each wraps one of these.
var (
	ErrOnePane = errors.New("only one pane in the tab")
	ErrNoRoom  = errors.New("no room")
	ErrNoLast  = errors.New("no last pane")
)

// Arrangements are the layouts NextArrangement cycles through, in tmux's
// order for next-layout.
var Arrangements = []string{"even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"}

// mainShare is the main pane's share of the area in main-horizontal and
// main-vertical. tmux sizes the main pane in cells (main-pane-height 24,
// main-pane-width 80); a share suits melmux's ratio trees, which keep their
// proportions at every window size.
const mainShare = 0.6

// CycleFocus focuses the pane delta places after the focused one in the
// active tab's tree order (left to right, top to bottom), wrapping, as
// tmux's select-pane -t :.+ (o). It reports whether focus moved.
func (l *Layout) CycleFocus(delta int) bool {
	if len(l.tabs) == 0 {
		return false
	}
	t := l.tabs[l.active]
	ids := t.root.leaves(nil)
	if len(ids) < 2 {
		return false
	}
	i := indexOf(ids, t.focus)
	next := ids[((i+delta)%len(ids)+len(ids))%len(ids)]
	l.focusLocked(t, next)
	return true
}

// LastPane focuses the pane of the active tab that had focus before the
// focused one, as tmux's last-pane (;). The error says when there is none.
func (l *Layout) LastPane() error {
	if len(l.tabs) == 0 {
		return fmt.Errorf("%w: the session has no panes", ErrNoLast)
	}
	t := l.tabs[l.active]
	best, bestSeq := 0, uint64(0)
	for _, id := range t.root.leaves(nil) {
		if s, ok := l.recent[id]; ok && id != t.focus && s > bestSeq {
			best, bestSeq = id, s
		}
	}
	if best == 0 {
		if t.root.split == "" {
			return fmt.Errorf("%w: pane %d is alone in its tab", ErrNoLast, t.focus)
		}
		return fmt.Errorf("%w: no other pane of this tab had focus yet", ErrNoLast)
	}
	l.focusLocked(t, best)
	return nil
}

// SwapPane swaps the focused pane of the active tab with the one delta
// places from it in tree order (-1 the previous, 1 the next), wrapping, as
// tmux's swap-pane -U and -D ({ and }). The focused pane keeps focus in its
// new place; the split tree and its sizes stay as they were.
func (l *Layout) SwapPane(delta int) error {
	if len(l.tabs) == 0 {
		return fmt.Errorf("%w: the session has no panes", ErrOnePane)
	}
	t := l.tabs[l.active]
	leaves := t.root.leafNodes(nil)
	if len(leaves) < 2 {
		return fmt.Errorf("%w: pane %d has none to swap with", ErrOnePane, t.focus)
	}
	i := 0
	for j, n := range leaves {
		if n.pane == t.focus {
			i = j
		}
	}
	j := ((i+delta)%len(leaves) + len(leaves)) % len(leaves)
	leaves[i].pane, leaves[j].pane = leaves[j].pane, leaves[i].pane
	t.zoomed = false
	return nil
}

// BreakPane moves pane id out of its tab into a new tab of its own, after
// the last one, and makes that tab active, as tmux's break-pane (!). A pane
// alone in its tab is refused: it has a tab of its own already.
func (l *Layout) BreakPane(id int) (int, error) {
	ti, ok := l.TabOf(id)
	if !ok {
		return 0, fmt.Errorf("%w: pane %d does not exist (panes: %s)", ErrNoSuchPane, id, l.paneList())
	}
	if l.tabs[ti].root.split == "" {
		return 0, fmt.Errorf("%w: pane %d is already alone in tab %d", ErrOnePane, id, ti)
	}
	if err := l.Remove(id); err != nil {
		return 0, err
	}
	return l.addTab(id, "").Tab, nil
}

// NextArrangement lays the active tab's panes out anew in the arrangement
// after the one it had last (Arrangements, wrapping; the first when it had
// none), keeping their tree order and focus, as tmux's next-layout (Space).
// An arrangement that would leave a pane smaller than MinCols x MinRows in a
// w x h area is passed over. It returns the name of the one used.
func (l *Layout) NextArrangement(w, h int) (string, error) {
	if len(l.tabs) == 0 {
		return "", fmt.Errorf("%w: the session has no panes", ErrOnePane)
	}
	t := l.tabs[l.active]
	ids := t.root.leaves(nil)
	if len(ids) < 2 {
		return "", fmt.Errorf("%w: pane %d has the tab to itself, there is nothing to lay out", ErrOnePane, t.focus)
	}
	var why []string
	for step := 1; step <= len(Arrangements); step++ {
		k := (t.arranged - 1 + step) % len(Arrangements)
		root := arrange(Arrangements[k], ids)
		if small := smallest(root, w, h); small != "" {
			why = append(why, Arrangements[k]+" would leave "+small)
			continue
		}
		t.root, t.arranged, t.zoomed = root, k+1, false
		return Arrangements[k], nil
	}
	return "", fmt.Errorf("%w for %d panes in %dx%d: %s", ErrNoRoom, len(ids), w, h, strings.Join(why, "; "))
}

// SplitRoom says why splitting pane target in direction kind (Right or
// Down) in a w x h area would leave a pane smaller than MinCols x MinRows,
// or returns nil when it fits: what Add checks before it opens a tab
// instead, asked without adding anything.
func (l *Layout) SplitRoom(target int, kind Kind, w, h int) error {
	ti, ok := l.TabOf(target)
	if !ok {
		return fmt.Errorf("%w: pane %d does not exist (panes: %s)", ErrNoSuchPane, target, l.paneList())
	}
	if kind != Right && kind != Down {
		return nil
	}
	t := l.tabs[ti]
	leaf := t.root.find(target)
	old := *leaf
	const probe = -1 // no pane has this id: Add refuses ids below 1
	*leaf = node{split: kind, ratio: 0.5, parent: old.parent, a: &node{pane: target}, b: &node{pane: probe}}
	leaf.a.parent, leaf.b.parent = leaf, leaf
	why := tooSmallFor(t.root, kind, target, probe, "the new pane", w, h)
	*leaf = old
	if why != "" {
		return fmt.Errorf("%w: %s", ErrNoRoom, why)
	}
	return nil
}

// arrange builds the tree of one arrangement over ids, in their order.
func arrange(name string, ids []int) *node {
	switch name {
	case "even-horizontal":
		return chain(Right, ids)
	case "even-vertical":
		return chain(Down, ids)
	case "main-horizontal":
		return pair(Down, mainShare, &node{pane: ids[0]}, chain(Right, ids[1:]))
	case "main-vertical":
		return pair(Right, mainShare, &node{pane: ids[0]}, chain(Down, ids[1:]))
	}
	// tiled: a grid as near square as the count allows, filled row by row.
	cols := int(math.Ceil(math.Sqrt(float64(len(ids)))))
	var rows []*node
	for i := 0; i < len(ids); i += cols {
		rows = append(rows, chain(Right, ids[i:min(i+cols, len(ids))]))
	}
	return chainNodes(Down, rows)
}

// chain puts ids side by side (Right) or stacked (Down) in equal shares.
func chain(kind Kind, ids []int) *node {
	leaves := make([]*node, len(ids))
	for i, id := range ids {
		leaves[i] = &node{pane: id}
	}
	return chainNodes(kind, leaves)
}

// chainNodes nests ns so that each gets an equal share: the first takes
// 1/n, the rest share the remainder the same way.
func chainNodes(kind Kind, ns []*node) *node {
	if len(ns) == 1 {
		return ns[0]
	}
	return pair(kind, 1/float64(len(ns)), ns[0], chainNodes(kind, ns[1:]))
}

func pair(kind Kind, ratio float64, a, b *node) *node {
	n := &node{split: kind, ratio: ratio, a: a, b: b}
	a.parent, b.parent = n, n
	return n
}

// smallest names a pane of root that gets less than MinCols x MinRows in
// a w x h area, or returns "".
func smallest(root *node, w, h int) string {
	for _, p := range place(root, w, h) {
		if p.Content.W < MinCols || p.Content.H < MinRows {
			return fmt.Sprintf("pane %d %dx%d, smaller than the minimum %dx%d", p.Pane, p.Content.W, p.Content.H, MinCols, MinRows)
		}
	}
	return ""
}

// leafNodes lists the leaves themselves, in tree order.
func (n *node) leafNodes(dst []*node) []*node {
	if n.split == "" {
		return append(dst, n)
	}
	return n.b.leafNodes(n.a.leafNodes(dst))
}

func indexOf(ids []int, id int) int {
	for i, v := range ids {
		if v == id {
			return i
		}
	}
	return 0
}
