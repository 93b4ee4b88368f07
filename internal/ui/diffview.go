package ui

import (
	"sort"
	"strconv"
	"strings"

	"github.com/melmux/melmux/pane/term"
)

// The diff view: a worktree's changes (git's --stat summary of the files,
// then the patch, hunk by hunk) in colour over the focused pane, as copy
// mode's view of a verb's output is, with keys to go from file to file and
// hunk to hunk.

// Colours of the diff view, git's defaults: headers bold, hunk headers cyan,
// added lines green, deleted lines red.
var (
	diffAdded   = term.Cell{FG: term.Indexed(2)}
	diffDeleted = term.Cell{FG: term.Indexed(1)}
	diffHunk    = term.Cell{FG: term.Indexed(6)}
	diffHeader  = term.Cell{Attr: term.AttrBold}
)

// DiffKind is what a line of a diff is, which gives its colour.
type DiffKind uint8

// The kinds of diff lines.
const (
	DiffText    DiffKind = iota // outside any file: the --stat summary
	DiffFile                    // "diff --git a/x b/x": a file begins
	DiffHeader                  // the file's other header lines (index, ---, +++...)
	DiffHunk                    // "@@ -1,3 +1,4 @@"
	DiffAdded                   // "+..."
	DiffDeleted                 // "-..."
	DiffContext                 // " ..."
)

// DiffLine is one line of a diff to show. Plus and Minus are, for a line of
// the --stat summary, the lengths of the '+' and '-' runs its bar ends with.
type DiffLine struct {
	Text        string
	Kind        DiffKind
	Plus, Minus int
}

// diffNav is where a diff view's files and hunks begin: the first view row
// of each "diff --git" line and of each "@@" line, in order.
type diffNav struct {
	files, hunks []int
}

// ShowDiff shows lines, a worktree's diff, in the focused pane of sc: copy
// mode over the coloured rows (wrapped to the pane's width), from the top.
// n and p go to the next and previous file, ] and [ to the next and previous
// hunk; the rest is the output view's (scrolling, search, selection; q or
// Escape leaves). It reports whether there was a pane to show it in.
func (in *Input) ShowDiff(lines []DiffLine, sc *Scene) bool {
	return in.showView(func(width int) (CellRows, []int, *diffNav) { return diffRows(lines, width) }, sc)
}

// diffRows lays out a diff's lines as textRows does, coloured by kind, and
// finds where files and hunks begin; starts is the first row of each line.
func diffRows(lines []DiffLine, width int) (CellRows, []int, *diffNav) {
	nav := &diffNav{}
	var text strings.Builder
	for _, l := range lines {
		text.WriteString(strings.ReplaceAll(l.Text, "\n", " "))
		text.WriteByte('\n')
	}
	i := 0
	rows, starts := layoutLines(text.String(), width, func(_ string, first int, span CellRows) {
		l := lines[i]
		i++
		switch l.Kind {
		case DiffFile:
			nav.files = append(nav.files, first)
			paint(span, diffHeader)
		case DiffHeader:
			paint(span, diffHeader)
		case DiffHunk:
			nav.hunks = append(nav.hunks, first)
			paint(span, diffHunk)
		case DiffAdded:
			paint(span, diffAdded)
		case DiffDeleted:
			paint(span, diffDeleted)
		case DiffText:
			paintStatBar(span, l.Plus, l.Minus)
		}
	})
	// The last rows may have given way to the note of lines not shown.
	for len(nav.files) > 0 && nav.files[len(nav.files)-1] >= len(rows) {
		nav.files = nav.files[:len(nav.files)-1]
	}
	for len(nav.hunks) > 0 && nav.hunks[len(nav.hunks)-1] >= len(rows) {
		nav.hunks = nav.hunks[:len(nav.hunks)-1]
	}
	return rows, starts, nav
}

// paint gives every cell of rows the colours and attributes of style.
func paint(rows CellRows, style term.Cell) {
	for _, row := range rows {
		for i := range row {
			row[i].FG, row[i].BG, row[i].Attr = style.FG, style.BG, style.Attr
		}
	}
}

// paintStatBar colours the bar that ends a --stat line: its last minus
// cells red, the plus cells before them green.
func paintStatBar(rows CellRows, plus, minus int) {
	for y := len(rows) - 1; y >= 0 && plus+minus > 0; y-- {
		row := rows[y]
		for x := len(row) - 1; x >= 0 && plus+minus > 0; x-- {
			if minus > 0 {
				row[x].FG = diffDeleted.FG
				minus--
			} else {
				row[x].FG = diffAdded.FG
				plus--
			}
		}
	}
}

// diffKey moves a diff view: n and p between files, ] and [ between hunks;
// c commits the worktree's changes, asking for the message, and m merges
// its branch into its base branch, asking first (diffAct). ok is false for
// any other key.
func (in *Input) diffKey(r rune) (acts []Action, ok bool) {
	c := in.copy
	var marks []int
	var what string
	forward := r == 'n' || r == ']'
	switch r {
	case 'c', 'm':
		return in.diffAct(r), true
	case 'n', 'p':
		marks, what = c.diff.files, "file"
	case ']', '[':
		marks, what = c.diff.hunks, "hunk"
	default:
		return nil, false
	}
	row, found := nextMark(marks, c.cur.Y, forward)
	switch {
	case found:
		c.showFromRow(row)
	case len(marks) == 0:
		in.msg = "no " + what + " in this diff"
	case forward:
		in.msg = "the last " + what
	default:
		in.msg = "the first " + what
	}
	return []Action{Redraw{}}, true
}

// nextMark is the first of marks (ascending) after y, or with forward false
// the last one before y.
func nextMark(marks []int, y int, forward bool) (int, bool) {
	if forward {
		i := sort.SearchInts(marks, y+1)
		if i < len(marks) {
			return marks[i], true
		}
		return 0, false
	}
	i := sort.SearchInts(marks, y)
	if i > 0 {
		return marks[i-1], true
	}
	return 0, false
}

// showFromRow puts the cursor at the start of line y and scrolls the view so
// that y is its top row, as far as the end of the text allows.
func (c *CopyMode) showFromRow(y int) {
	c.cur = Point{0, y}
	c.top = min(y, c.maxTop())
	c.clampCursor()
}

// position says which file of the diff row y is in: "file 2/5", or "" in
// the summary before the first file.
func (d *diffNav) position(y int) string {
	i := sort.SearchInts(d.files, y+1)
	if i == 0 {
		return ""
	}
	return "file " + strconv.Itoa(i) + "/" + strconv.Itoa(len(d.files)) + " "
}

// promptMessage is a prompt for a line of text that its then acts on: no
// completion, no history.
const promptMessage promptKind = -1

// diffAct opens the prompt of the diff view's c (a commit message) or m
// (merge, y/n). What they run is melmux's own verb, as the ":" prompt runs
// it, for the pane the view is of: `worktree commit -t PANE -m MESSAGE`,
// `worktree merge -t PANE`; its answer shows in the status line. The view
// stays as it was (C-b D shows the diff anew).
func (in *Input) diffAct(r rune) []Action {
	pane := strconv.Itoa(in.copyPane)
	if r == 'm' {
		in.prompt = &prompt{kind: promptConfirm, label: "merge pane " + pane + "'s branch into its base branch in the main checkout? (y/n) ",
			then: func(string) []Action {
				args := []string{"worktree", "merge", "-t", pane}
				return []Action{RunLine{Line: strings.Join(args, " "), Args: args}}
			}}
		return []Action{Redraw{}}
	}
	in.prompt = &prompt{kind: promptMessage, label: "commit pane " + pane + "'s changes, message: ",
		then: func(msg string) []Action {
			if strings.TrimSpace(msg) == "" {
				in.msg = "no commit message: nothing committed"
				return nil
			}
			args := []string{"worktree", "commit", "-t", pane, "-m", msg}
			return []Action{RunLine{Line: "worktree commit -t " + pane + " -m " + strconv.Quote(msg), Args: args}}
		}}
	return []Action{Redraw{}}
}
