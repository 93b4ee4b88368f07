package layout

// Border is the line between the two sides of one split, as the UI draws and
// drags it. For a Right split it is the vertical separator column X, rows Y to
// Y+Len-1 (cells no Frame holds); for a Down split it is row Y, columns X to
// X+Len-1: the top border rows of the lower side's top panes.
type Border struct {
	Split Kind // Right or Down
	X, Y  int
	Len   int
	Node  int  // the split's preorder index in its tab's tree; DragBorder checks it still names this split
	Area  Rect // the split's whole rectangle: a drag moves the border within it
}

// Contains reports whether cell x, y lies on the border.
func (b Border) Contains(x, y int) bool {
	if b.Split == Right {
		return x == b.X && y >= b.Y && y < b.Y+b.Len
	}
	return y == b.Y && x >= b.X && x < b.X+b.Len
}

// Borders returns the borders of every split of a tab laid out in a w x h
// area, in preorder; none for a zoomed tab or one that does not exist.
func (l *Layout) Borders(tabIndex, w, h int) []Border {
	if tabIndex < 0 || tabIndex >= len(l.tabs) || l.tabs[tabIndex].zoomed {
		return nil
	}
	root := l.tabs[tabIndex].root
	var out []Border
	walk(root, rootRect(root, w, h), func(n *node, r Rect, i int) {
		if n.split != "" {
			out = append(out, borderOf(n, r, i))
		}
	})
	return out
}

func borderOf(n *node, r Rect, index int) Border {
	ra, _ := childRects(n, r)
	if n.split == Right {
		return Border{Split: Right, X: ra.X + ra.W, Y: r.Y, Len: r.H, Node: index, Area: r}
	}
	return Border{Split: Down, X: r.X, Y: ra.Y + ra.H, Len: r.W, Node: index, Area: r}
}

// BorderAt returns the border under cell x, y of a tab laid out in a w x h
// area, for starting a mouse drag; a vertical separator wins where one
// crosses a Down border's row.
func (l *Layout) BorderAt(tabIndex, x, y, w, h int) (Border, bool) {
	// A separator cell on the row of a Down border belongs to the separator:
	// it is drawn as one, and dragging it sideways is what a person means.
	var down *Border
	for _, b := range l.Borders(tabIndex, w, h) {
		if !b.Contains(x, y) {
			continue
		}
		if b.Split == Right {
			return b, true
		}
		down = &b
	}
	if down != nil {
		return *down, true
	}
	return Border{}, false
}

// DragBorder moves border b of a tab (from Borders or BorderAt for the same
// tab and size) to column to (a Right border) or row to (a Down border), in a
// w x h area. The move is clamped so that no pane on either side ends up
// smaller than MinCols x MinRows content, or smaller than it already was when
// the window is too small for that. It reports whether the border moved; a
// border that no longer names the same split moves nothing.
func (l *Layout) DragBorder(tabIndex int, b Border, to int, w, h int) bool {
	if tabIndex < 0 || tabIndex >= len(l.tabs) || l.tabs[tabIndex].zoomed {
		return false
	}
	root := l.tabs[tabIndex].root
	var sn *node
	var sr Rect
	walk(root, rootRect(root, w, h), func(n *node, r Rect, i int) {
		if i == b.Node && n.split == b.Split && n.split != "" {
			sn, sr = n, r
		}
	})
	if sn == nil {
		return false
	}
	aw, ah := sn.a.minSize(1, 1)
	bw, bh := sn.b.minSize(1, 1)
	ra, _ := childRects(sn, sr)
	var avail, cur, want, lo, hi int
	if sn.split == Right {
		avail, cur, want, lo, hi = sr.W-1, ra.W, to-sr.X, aw, sr.W-1-bw
	} else {
		avail, cur, want, lo, hi = sr.H, ra.H, to-sr.Y, ah, sr.H-bh
	}
	want = min(max(want, lo), hi)
	if want == cur {
		return false
	}
	before := make(map[int]Rect)
	for _, p := range subPlace(sn, sr) {
		before[p.Pane] = p.Content
	}
	old := sn.ratio
	step := 1
	if want > cur {
		step = -1
	}
	// Walk back from the wanted position toward the current one and keep the
	// first position where every pane keeps its minimum; the current
	// position always qualifies, so the walk ends.
	for f := want; f != cur; f += step {
		sn.ratio = float64(f) / float64(avail)
		if keepsMinimum(subPlace(sn, sr), before) {
			return true
		}
	}
	sn.ratio = old
	return false
}

func subPlace(n *node, r Rect) []Placement {
	var out []Placement
	walk(n, r, func(n *node, r Rect, _ int) {
		if n.split == "" {
			out = append(out, leafPlacement(n.pane, r))
		}
	})
	return out
}

func keepsMinimum(ps []Placement, before map[int]Rect) bool {
	for _, p := range ps {
		was := before[p.Pane]
		if p.Content.W < min(MinCols, was.W) || p.Content.H < min(MinRows, was.H) {
			return false
		}
	}
	return true
}
