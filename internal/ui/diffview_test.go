package ui

import (
	"reflect"
	"strings"
	"testing"
)

// sampleDiff is a worktree's diff as the server hands it over: the summary,
// then two files with their hunks.
func sampleDiff() []DiffLine {
	return []DiffLine{
		{Text: " a.txt   | 3 ++-", Kind: DiffText, Plus: 2, Minus: 1},
		{Text: " new.txt | 2 ++", Kind: DiffText, Plus: 2},
		{Text: " 2 files changed, 4 insertions(+), 1 deletion(-)", Kind: DiffText},
		{Text: "", Kind: DiffText},
		{Text: "diff --git a/a.txt b/a.txt", Kind: DiffFile},
		{Text: "--- a/a.txt", Kind: DiffHeader},
		{Text: "+++ b/a.txt", Kind: DiffHeader},
		{Text: "@@ -1,2 +1,3 @@", Kind: DiffHunk},
		{Text: " one", Kind: DiffContext},
		{Text: "-two", Kind: DiffDeleted},
		{Text: "+2", Kind: DiffAdded},
		{Text: "@@ -9 +10 @@", Kind: DiffHunk},
		{Text: "+ten", Kind: DiffAdded},
		{Text: "diff --git a/new.txt b/new.txt", Kind: DiffFile},
		{Text: "new file mode 100644", Kind: DiffHeader},
		{Text: "@@ -0,0 +1,2 @@", Kind: DiffHunk},
		{Text: "+n1", Kind: DiffAdded},
		{Text: "+n2", Kind: DiffAdded},
	}
}

// TestDiffView: the diff opens over the focused pane from its top, coloured
// as git colours it (the summary's bars too); n and p go from file to file,
// ] and [ from hunk to hunk, saying so at either end; q leaves.
func TestDiffView(t *testing.T) {
	sc := scene(nil, pane(1, Rect{0, 0, W, H - 1}, true, "bash"))
	in := newIn(t, "", nil)
	if !in.ShowDiff(sampleDiff(), sc) {
		t.Fatal("no pane to show the diff in")
	}
	in.Decorate(sc)
	s := newSim(t, W, H)
	Draw(s, sc)
	golden(t, "diff_view", dump(s, true))

	cursor := func() int { return in.copy.Cursor().Y }
	steps := []struct {
		key  string
		line int    // the cursor's line after the key
		msg  string // the status line's note, if any
	}{
		// The summary's third line wraps to two rows: a.txt's header is row 5.
		{"n", 5, ""}, {"n", 14, ""}, {"n", 14, "the last file"}, {"p", 5, ""}, {"p", 5, "the first file"},
		{"]", 8, ""}, {"]", 12, ""}, {"]", 16, ""}, {"]", 16, "the last hunk"}, {"[", 12, ""},
	}
	for _, st := range steps {
		press(t, in, sc, st.key)
		if cursor() != st.line || in.msg != st.msg {
			t.Fatalf("after %s: line %d, note %q; want line %d, note %q", st.key, cursor(), in.msg, st.line, st.msg)
		}
	}
	if pos := in.copy.View().Position; !strings.HasPrefix(pos, "file 1/2 ") {
		t.Fatalf("position %q, want it to name file 1/2", pos)
	}
	press(t, in, sc, "q")
	if _, on := in.CopyPane(); on {
		t.Fatal("q did not leave the diff view")
	}
}

// A long diff wrapped to a narrow pane still finds its files by their first
// row, and a diff cut at the view's row limit keeps no mark past its end.
func TestDiffRowsWrapAndLimit(t *testing.T) {
	lines := []DiffLine{{Text: "diff --git a/" + strings.Repeat("x", 30) + " b/x", Kind: DiffFile}, {Text: "+1", Kind: DiffAdded},
		{Text: "diff --git a/y b/y", Kind: DiffFile}}
	_, _, nav := diffRows(lines, 20)
	if !reflect.DeepEqual(nav.files, []int{0, 4}) {
		t.Fatalf("files at %v, want [0 4] (the first header takes 3 rows)", nav.files)
	}
	var many []DiffLine
	for range maxViewRows + 5 {
		many = append(many, DiffLine{Text: "diff --git a/z b/z", Kind: DiffFile})
	}
	rows, _, nav := diffRows(many, 40)
	if len(rows) != maxViewRows || nav.files[len(nav.files)-1] >= len(rows) {
		t.Fatalf("%d rows, last file at %d", len(rows), nav.files[len(nav.files)-1])
	}
}

// C-b D asks the server for the focused pane's diff.
func TestDiffBinding(t *testing.T) {
	sc := scene(nil, pane(3, Rect{0, 0, W, H - 1}, true, "bash"))
	in := newIn(t, "", nil)
	acts := press(t, in, sc, "C-b", "D")
	want := Command{Name: "diff", Pane: 3}
	for _, a := range acts {
		if reflect.DeepEqual(a, want) {
			return
		}
	}
	t.Fatalf("C-b D gave %#v, want %#v", acts, want)
}

// A worktree pane's border shows its changes after its name, added in green
// and deleted in red; with too little room they go before the state does.
func TestDrawWorktreeBorder(t *testing.T) {
	left, right := Rect{0, 0, 28, H - 1}, Rect{29, 0, 11, H - 1}
	sc := scene(nil, pane(1, left, true, "claude", "working"), pane(2, right, false, "bash", "narrow"))
	sc.Separators = []Rect{{28, 0, 1, H - 1}}
	sc.Panes[0].Diff = &DiffCount{Added: 12, Deleted: 3}
	sc.Panes[1].Diff = &DiffCount{Added: 120, Deleted: 45}
	s := newSim(t, W, H)
	Draw(s, sc)
	golden(t, "worktree_border", dump(s, true))
}

// In a diff view c asks for a commit message and runs `worktree commit` for
// the view's pane with it (an empty one commits nothing, saying so); m asks
// y/n and runs `worktree merge`, n running nothing. The view stays.
func TestDiffViewCommitAndMerge(t *testing.T) {
	sc := scene(nil, pane(4, Rect{0, 0, W, H - 1}, true, "bash"))
	in := newIn(t, "", nil)
	if !in.ShowDiff(sampleDiff(), sc) {
		t.Fatal("no pane to show the diff in")
	}
	if acts := press(t, in, sc, "c"); len(acts) != 0 || in.prompt == nil || !strings.Contains(in.prompt.label, "commit pane 4's changes, message:") {
		t.Fatalf("c: actions %v, prompt %+v", acts, in.prompt)
	}
	acts := press(t, in, sc, "f", "i", "x", "Space", "i", "t", "Tab", "Enter")
	want := RunLine{Line: `worktree commit -t 4 -m "fix it"`, Args: []string{"worktree", "commit", "-t", "4", "-m", "fix it"}}
	if len(acts) != 1 || !reflect.DeepEqual(acts[0], want) {
		t.Fatalf("the message typed: %#v, want %#v", acts, want)
	}
	if acts := press(t, in, sc, "c", "Enter"); len(acts) != 0 || in.msg != "no commit message: nothing committed" {
		t.Fatalf("an empty message: %v, note %q", acts, in.msg)
	}
	if acts := press(t, in, sc, "m"); len(acts) != 0 || in.prompt == nil || !strings.Contains(in.prompt.label, "merge pane 4's branch into its base branch") {
		t.Fatalf("m: actions %v, prompt %+v", acts, in.prompt)
	}
	if acts := press(t, in, sc, "n"); len(acts) != 0 {
		t.Fatalf("m then n ran %v", acts)
	}
	acts = press(t, in, sc, "m", "y")
	want = RunLine{Line: "worktree merge -t 4", Args: []string{"worktree", "merge", "-t", "4"}}
	if len(acts) != 1 || !reflect.DeepEqual(acts[0], want) {
		t.Fatalf("m then y: %#v, want %#v", acts, want)
	}
	if p, on := in.CopyPane(); !on || p != 4 {
		t.Fatal("the diff view closed")
	}
}
