package layout

import "math"

// node is a leaf (split == "", pane set) or a split (split Right or Down,
// both children set). ratio is the first child's share of the split's
// divisible cells, strictly between 0 and 1.
type node struct {
	split  Kind
	pane   int
	ratio  float64
	a, b   *node
	parent *node
}

func (n *node) leaves(dst []int) []int {
	if n.split == "" {
		return append(dst, n.pane)
	}
	return n.b.leaves(n.a.leaves(dst))
}

func (n *node) find(id int) *node {
	if n.split == "" {
		if n.pane == id {
			return n
		}
		return nil
	}
	if f := n.a.find(id); f != nil {
		return f
	}
	return n.b.find(id)
}

// minSize is the smallest area in which every pane of the subtree gets at
// least cols x rows content: a pane's frame adds a top border row, a Right
// split a separator column.
func (n *node) minSize(cols, rows int) (w, h int) {
	if n.split == "" {
		return cols, rows + 1
	}
	aw, ah := n.a.minSize(cols, rows)
	bw, bh := n.b.minSize(cols, rows)
	if n.split == Right {
		return aw + 1 + bw, max(ah, bh)
	}
	return max(aw, bw), ah + bh
}

// divide splits n cells (already net of any separator) between two children
// needing at least minA and minB: ratio*n rounded half up, clamped. Callers
// guarantee n >= minA+minB.
func divide(ratio float64, n, minA, minB int) int {
	first := int(math.Floor(ratio*float64(n) + 0.5))
	return min(max(first, minA), n-minB)
}

func leafPlacement(id int, r Rect) Placement {
	return Placement{Pane: id, Frame: r, Content: Rect{r.X, r.Y + 1, r.W, r.H - 1}}
}

// place lays out a tree in a w x h area, enlarged to the tree's absolute
// minimum when smaller (the overflow the package doc describes).
func place(root *node, w, h int) []Placement {
	var out []Placement
	walk(root, rootRect(root, w, h), func(n *node, r Rect, _ int) {
		if n.split == "" {
			out = append(out, leafPlacement(n.pane, r))
		}
	})
	return out
}

func rootRect(root *node, w, h int) Rect {
	mw, mh := root.minSize(1, 1)
	return Rect{0, 0, max(w, mw), max(h, mh)}
}

// walk visits every node of the tree in preorder with its rectangle and its
// preorder index (which names a split in a Border).
func walk(root *node, r Rect, visit func(n *node, r Rect, index int)) {
	i := 0
	var rec func(n *node, r Rect)
	rec = func(n *node, r Rect) {
		visit(n, r, i)
		i++
		if n.split == "" {
			return
		}
		ra, rb := childRects(n, r)
		rec(n.a, ra)
		rec(n.b, rb)
	}
	rec(root, r)
}

// childRects divides a split's rectangle between its children. For Right the
// column between them is the separator.
func childRects(n *node, r Rect) (Rect, Rect) {
	aw, ah := n.a.minSize(1, 1)
	bw, bh := n.b.minSize(1, 1)
	if n.split == Right {
		first := divide(n.ratio, r.W-1, aw, bw)
		return Rect{r.X, r.Y, first, r.H}, Rect{r.X + first + 1, r.Y, r.W - 1 - first, r.H}
	}
	first := divide(n.ratio, r.H, ah, bh)
	return Rect{r.X, r.Y, r.W, first}, Rect{r.X, r.Y + first, r.W, r.H - first}
}
