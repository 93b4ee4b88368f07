package layout

// MoveFocus moves the active tab's focus to the pane next to the focused one
// in direction d (Left, Right, Up or Down), laid out in a w x h area, the
// way tmux's select-pane -L/-R/-U/-D does: a neighbour is a pane whose facing
// edge touches the focused pane's edge (across the separator for Left/Right)
// and that overlaps it along that edge; from the window's edge the search
// wraps to the opposite edge. Among several neighbours the most recently
// focused wins, then the one sharing the longest edge, then the first in tree
// order. A zoomed tab is unzoomed first. It reports whether focus moved.
func (l *Layout) MoveFocus(d Direction, w, h int) bool {
	if len(l.tabs) == 0 {
		return false
	}
	switch d {
	case Left, Right, Up, Down:
	default:
		return false
	}
	t := l.tabs[l.active]
	if t.root.split == "" {
		return false
	}
	area := rootRect(t.root, w, h)
	ps := place(t.root, w, h)
	var cur Rect
	for _, p := range ps {
		if p.Pane == t.focus {
			cur = p.Frame
		}
	}
	best, bestSeq, bestOverlap := 0, uint64(0), -1
	for _, p := range ps {
		if p.Pane == t.focus {
			continue
		}
		c := p.Frame
		var touches bool
		var overlap int
		switch d {
		case Left:
			edge := cur.X
			if edge == 0 {
				edge = area.W + 1 // wrap: the rightmost panes
			}
			touches = c.X+c.W+1 == edge
			overlap = span(c.Y, c.H, cur.Y, cur.H)
		case Right:
			edge := cur.X + cur.W + 1
			if cur.X+cur.W == area.W {
				edge = 0 // wrap: the leftmost panes
			}
			touches = c.X == edge
			overlap = span(c.Y, c.H, cur.Y, cur.H)
		case Up:
			edge := cur.Y
			if edge == 0 {
				edge = area.H
			}
			touches = c.Y+c.H == edge
			overlap = span(c.X, c.W, cur.X, cur.W)
		case Down:
			edge := cur.Y + cur.H
			if edge == area.H {
				edge = 0
			}
			touches = c.Y == edge
			overlap = span(c.X, c.W, cur.X, cur.W)
		}
		if !touches || overlap <= 0 {
			continue
		}
		seq := l.recent[p.Pane]
		if best == 0 || seq > bestSeq || seq == bestSeq && overlap > bestOverlap {
			best, bestSeq, bestOverlap = p.Pane, seq, overlap
		}
	}
	if best == 0 {
		return false
	}
	t.zoomed = false
	l.focusLocked(t, best)
	return true
}

// span is the length of the overlap of [a, a+an) and [b, b+bn).
func span(a, an, b, bn int) int {
	return min(a+an, b+bn) - max(a, b)
}
