// Package layout is melmux's pure geometry: the tabs of a session, a binary
// split tree per tab, and the rectangles those trees give for a window size.
//
// A Layout holds pane ids only; it does no I/O and knows nothing of processes
// or drawing. Each tab is a tree whose leaves are panes and whose inner nodes
// are splits: a Right split puts its second child to the right of the first,
// a Down split puts it below. A split stores the share of its first child as
// a ratio, never absolute sizes, so the same tree lays out at any window size
// and growing the window back restores the sizes it had. Splitting a pane
// always nests: the pane's leaf becomes a split of ratio 0.5 holding the old
// pane and the new one, so the target is halved even when its parent splits in
// the same direction (tmux does the same). Removing a pane replaces its parent
// split with the sibling subtree, which so takes back the whole space.
//
// Geometry, for a w x h area (the session size minus the status line): every
// pane's Frame has a one-row top border (the UI's title bar) with its Content
// below; panes side by side are separated by a one-column vertical separator
// that belongs to neither Frame; stacked panes need no separator because the
// lower pane's top border separates them. A split of a dimension of n cells
// (n minus the separator for Right) gives its first child floor(ratio*n+0.5)
// cells, clamped so both subtrees keep at least one content cell per pane, and
// the second child the rest, so frames and separators tile the area exactly.
// When the window is smaller than a tree's absolute minimum (one content column
// per pane plus separators, two rows per stacked pane) the tree is laid out at
// that minimum instead and overflows the area, as tmux does; the UI clips. No
// rectangle is ever empty or negative.
//
// MinCols x MinRows is the soft minimum content size: Add turns a split that
// would leave a pane smaller than it into a new tab (and says so), and
// DragBorder never shrinks a pane below it. A Layout is not safe for
// concurrent use; the session server's owner goroutine owns it.
package layout
