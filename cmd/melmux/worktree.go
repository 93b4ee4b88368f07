package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/worktree"
)

// worktreeFlag is --worktree [NAME] of open-pane and spawn-agent: alone it
// asks for a worktree named by melmux; --worktree=NAME, or --worktree NAME
// (parseWorktreeFlags), names it.
type worktreeFlag struct {
	on   bool
	name string
}

func (f *worktreeFlag) String() string { return f.name }

// IsBoolFlag lets --worktree stand alone.
func (f *worktreeFlag) IsBoolFlag() bool { return true }

func (f *worktreeFlag) Set(v string) error {
	switch v {
	case "true":
		f.on, f.name = true, ""
	case "false":
		f.on, f.name = false, ""
	default:
		if err := worktree.CheckName(v); err != nil {
			return err
		}
		f.on, f.name = true, v
	}
	return nil
}

// parseWorktreeFlags is parseFlags taking the word after a bare --worktree
// as its NAME (unless it is a flag or `--`), then parsing on after it.
func parseWorktreeFlags(fs *flag.FlagSet, wt *worktreeFlag, args []string) error {
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	i := len(args) - len(rest)
	if !wt.on || wt.name != "" || i == 0 || len(rest) == 0 || (args[i-1] != "--worktree" && args[i-1] != "-worktree") || strings.HasPrefix(rest[0], "-") {
		return nil
	}
	if err := wt.Set(rest[0]); err != nil {
		return cli.Usagef("%s: --worktree: %v", fs.Name(), err)
	}
	return cli.ParseFlags(fs, rest[1:])
}

// worktreeUsage is the worktree verb's synopsis, one subcommand a line.
const worktreeUsage = `list [--all] [--json]
       melmux worktree commit -t PANE -m MESSAGE [--json]
       melmux worktree merge -t PANE [--json]
       melmux worktree clean [--dry-run] [--json]`

func init() {
	cli.Register(&cli.Verb{
		Name:    "worktree",
		Usage:   worktreeUsage,
		Summary: "the worktrees of panes: list them; commit or merge a pane's; clean: remove those that hold nothing unsaved",
		Run: func(g *cli.Globals, args []string) error {
			if len(args) > 0 {
				switch args[0] {
				case "list":
					return worktreeList(g, args[1:])
				case "commit":
					return worktreeCommit(g, args[1:])
				case "merge":
					return worktreeMerge(g, args[1:])
				case "clean":
					return worktreeClean(g, args[1:])
				case "-h", "-help", "--help", "help":
					fmt.Fprintf(g.Stdout, "usage: melmux worktree %s\n", worktreeUsage)
					return nil
				}
			}
			if len(args) > 0 {
				return cli.Usagef("worktree: unknown subcommand %q (allowed: list, commit, merge, clean; melmux worktree --help shows how)", args[0])
			}
			return cli.Usagef("worktree: give a subcommand: clean, list, commit or merge (melmux worktree --help shows how)")
		},
	})
}

// worktreeFlags is the flag set of a worktree subcommand: named "worktree"
// so that --help shows the verb's synopsis.
func worktreeFlags(g *cli.Globals) *flag.FlagSet { return cli.NewFlags(g, "worktree") }

func worktreeClean(g *cli.Globals, args []string) error {
	fs := worktreeFlags(g)
	dry := fs.Bool("dry-run", false, "say what would be removed, remove nothing")
	asJSON := fs.Bool("json", false, "print a JSON array")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("worktree clean takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	users := worktreeUsers()
	out, err := worktree.Clean(ctx, worktree.Root(), worktree.CleanOptions{DryRun: *dry, InUse: func(w worktree.Worktree) string {
		return users(w.Path).String()
	}})
	if err != nil {
		return fmt.Errorf("worktree clean: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if *asJSON {
		return printJSON(g.Stdout, cleanJSON(out))
	}
	if len(out) == 0 {
		fmt.Fprintf(g.Stdout, "no worktrees in %s\n", worktree.Root())
		return nil
	}
	for _, o := range out {
		what := "kept"
		switch {
		case o.Removed && *dry:
			what = "would remove"
		case o.Removed:
			what = "removed"
		case o.Worktree == nil:
			what = "left alone"
		}
		name := o.Path
		if o.Worktree != nil && o.Worktree.Branch != "" {
			name += " (" + o.Worktree.Branch + ")"
		}
		fmt.Fprintf(g.Stdout, "%s %s: %s\n", what, client.VisibleLine(name), client.VisibleLine(o.Why))
	}
	return nil
}

// worktreePane is the -t PANE of commit and merge, after their flags.
func worktreePane(g *cli.Globals, sub, target string, fs *flag.FlagSet) (int, error) {
	if fs.NArg() > 0 {
		return 0, cli.Usagef("worktree %s takes no arguments besides its flags, got %q", sub, strings.Join(fs.Args(), " "))
	}
	return paneFlag(g, "worktree "+sub, target)
}

func worktreeCommit(g *cli.Globals, args []string) error {
	fs := worktreeFlags(g)
	target := fs.String("t", "", "the pane whose worktree to commit")
	message := fs.String("m", "", "the commit message")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	id, err := worktreePane(g, "commit", *target, fs)
	if err != nil {
		return err
	}
	if strings.TrimSpace(*message) == "" {
		return cli.Usagef("worktree commit: -m MESSAGE is required (the commit's message, not empty)")
	}
	c, err := dial(g)
	if err != nil {
		return err
	}
	defer c.Close()
	var res proto.WorktreeCommitResult
	if err := c.Call(context.Background(), "worktree_commit", proto.WorktreeCommitParams{Pane: id, Message: *message}, &res); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(g.Stdout, res)
	}
	_, err = fmt.Fprintf(g.Stdout, "committed %s on %s in pane %d's worktree (%s)\n", shortID(res.Commit), client.VisibleLine(cmp.Or(res.Branch, "a detached HEAD")), id, plural(res.Files, "file"))
	return err
}

func worktreeMerge(g *cli.Globals, args []string) error {
	fs := worktreeFlags(g)
	target := fs.String("t", "", "the pane whose worktree branch to merge")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	id, err := worktreePane(g, "merge", *target, fs)
	if err != nil {
		return err
	}
	c, err := dial(g)
	if err != nil {
		return err
	}
	defer c.Close()
	var res proto.WorktreeMergeResult
	if err := c.Call(context.Background(), "worktree_merge", proto.PaneRef{Pane: id}, &res); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(g.Stdout, res)
	}
	how := "a merge commit"
	if res.FastForward {
		how = "a fast-forward"
	}
	_, err = fmt.Fprintf(g.Stdout, "merged %s into %s in %s (%s, %s): now at %s\n", client.VisibleLine(res.Branch), client.VisibleLine(res.Into),
		client.VisibleLine(res.Repo), plural(res.Commits, "commit"), how, shortID(res.Commit))
	return err
}

func shortID(commit string) string { return commit[:min(len(commit), 12)] }

// cleanRow is one line of `worktree clean --json`.
type cleanRow struct {
	Path    string `json:"path"`
	Branch  string `json:"branch"`
	Repo    string `json:"repo"`
	Removed bool   `json:"removed"`
	Reason  string `json:"reason"`
}

func cleanJSON(out []worktree.Outcome) []cleanRow {
	rows := []cleanRow{}
	for _, o := range out {
		r := cleanRow{Path: o.Path, Removed: o.Removed, Reason: o.Why}
		if o.Worktree != nil {
			r.Branch, r.Repo = o.Worktree.Branch, o.Worktree.Repo
		}
		rows = append(rows, r)
	}
	return rows
}

// holder is who works in a worktree: a pane of a running session (started
// in it, or one of its processes works there), else the processes that
// work there outside every pane (what outlived its pane: a daemon an agent
// started). Nobody is the zero holder.
type holder struct {
	pane    string // "pane 4 of session main"
	paneID  int
	session string
	procs   []worktree.Process
}

func (h holder) String() string {
	switch {
	case h.pane != "":
		return h.pane
	case len(h.procs) == 1:
		return worktree.Names(h.procs) + " works in it"
	case len(h.procs) > 1:
		return worktree.Names(h.procs) + " work in it"
	}
	return ""
}

// paneRef is a pane of a running session.
type paneRef struct {
	id      int
	session string
}

func (p paneRef) holder() holder {
	return holder{pane: fmt.Sprintf("pane %d of session %s", p.id, p.session), paneID: p.id, session: p.session}
}

// worktreeUsers finds who works in a worktree: a pane of a running session
// started in it (each session in the socket directory is asked), else any
// process of this user whose current directory is in it, named as its pane
// when it is one of a pane's (its session is the pane program's), else by
// its pid and command line. It returns the lookup.
func worktreeUsers() func(path string) holder {
	byWorktree := map[string]paneRef{}
	bySession := map[int]paneRef{} // a pane program's pid leads its processes' session
	var mu sync.Mutex              // guards byWorktree and bySession
	var wg sync.WaitGroup
	for _, sock := range sessionSockets() {
		wg.Go(func() {
			c, err := client.DialTimeout(sock, lsTimeout)
			if err != nil {
				return
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), lsTimeout)
			defer cancel()
			var list []proto.PaneInfo
			if c.Call(ctx, "list_panes", nil, &list) != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, p := range list {
				ref := paneRef{id: p.ID, session: c.Session}
				if p.Worktree != nil {
					byWorktree[*p.Worktree] = ref
				}
				if p.PID > 0 && p.Status == "running" {
					bySession[p.PID] = ref
				}
			}
		})
	}
	wg.Wait()
	procs := worktree.Processes()
	return func(path string) holder {
		if ref, ok := byWorktree[path]; ok {
			return ref.holder()
		}
		var h holder
		for _, pr := range worktree.Inside(procs, path) {
			if ref, ok := bySession[pr.Session]; ok {
				return ref.holder()
			}
			h.procs = append(h.procs, pr)
		}
		return h
	}
}

// listRow is one worktree of `worktree list --json`.
type listRow struct {
	Name        string        `json:"name"`
	Branch      string        `json:"branch"`
	Path        string        `json:"path"`
	Repo        string        `json:"repo"`
	Base        string        `json:"base"`        // the commit it was made from
	BaseBranch  string        `json:"base_branch"` // the branch that commit was on; "" when detached
	Files       int           `json:"files"`       // what it holds that its base branch does not
	Added       int           `json:"added"`
	Deleted     int           `json:"deleted"`
	Clean       bool          `json:"clean"` // no uncommitted or untracked change
	Uncommitted int           `json:"uncommitted"`
	Commits     int           `json:"commits"`     // commits on its HEAD since the base
	Merged      bool          `json:"merged"`      // its HEAD is in MergedInto's history
	MergedInto  string        `json:"merged_into"` // what the main checkout has checked out
	Pane        *listPane     `json:"pane"`        // the pane working in it, null for none
	Processes   []listProcess `json:"processes"`   // processes in it outside every pane
	Error       string        `json:"error,omitempty"`
	holder      holder        // for the table
}

type listPane struct {
	ID      int    `json:"id"`
	Session string `json:"session"`
}

type listProcess struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

func worktreeList(g *cli.Globals, args []string) error {
	fs := worktreeFlags(g)
	all := fs.Bool("all", false, "every repository's worktrees, not only those of the current directory's repository")
	asJSON := fs.Bool("json", false, "print a JSON array")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("worktree list takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	repo := ""
	if !*all {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("worktree list: %w", err)
		}
		if repo, err = worktree.MainCheckout(ctx, wd); err != nil {
			return fmt.Errorf("worktree list: %w; give --all to list every repository's worktrees", err)
		}
	}
	list, err := worktree.List(ctx, worktree.Root(), repo)
	if err != nil {
		return fmt.Errorf("worktree list: %w", err)
	}
	users := worktreeUsers()
	rows := make([]listRow, len(list))
	for i, w := range list {
		rows[i] = listOne(ctx, w, users(w.Path))
	}
	if *asJSON {
		return printJSON(g.Stdout, rows)
	}
	if len(rows) == 0 {
		where := "of " + repo
		if *all {
			where = "in " + worktree.Root()
		}
		fmt.Fprintf(g.Stdout, "no melmux worktrees %s\n", client.VisibleLine(where))
		return nil
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBRANCH\tBASE\tCHANGES\tSTATE\tMERGED\tHELD BY\tPATH")
	for _, r := range rows {
		changes, state, merged := "?", "?", "?"
		if r.Error == "" {
			changes = fmt.Sprintf("+%d −%d", r.Added, r.Deleted)
			state = "clean"
			if !r.Clean {
				state = fmt.Sprintf("dirty (%s)", plural(r.Uncommitted, "file"))
			}
			switch {
			case r.Commits == 0:
				merged = "no commits"
			case r.Merged:
				merged = "merged into " + r.MergedInto
			default:
				merged = fmt.Sprintf("%s not merged", plural(r.Commits, "commit"))
			}
		} else {
			state = "unknown: " + r.Error
		}
		base := shortID(r.Base)
		if r.BaseBranch != "" {
			base = r.BaseBranch + "@" + base[:min(len(base), 7)]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", client.VisibleLine(r.Name), client.VisibleLine(cmp.Or(r.Branch, "(detached)")),
			client.VisibleLine(base), changes, client.VisibleLine(state), client.VisibleLine(merged),
			client.VisibleLine(cmp.Or(r.holder.String(), "none")), client.VisibleLine(r.Path))
	}
	return tw.Flush()
}

// listOne reads one worktree's row: its state, its changes against its
// base branch, and who works in it. What git cannot tell is the row's error.
func listOne(ctx context.Context, w worktree.Worktree, h holder) listRow {
	r := listRow{Name: w.Name, Branch: w.Branch, Path: w.Path, Repo: w.Repo, Base: w.Base, BaseBranch: w.BaseBranch,
		Processes: []listProcess{}, holder: h}
	if h.pane != "" {
		r.Pane = &listPane{ID: h.paneID, Session: h.session}
	}
	for _, p := range h.procs {
		r.Processes = append(r.Processes, listProcess{PID: p.PID, Command: p.Command})
	}
	st, err := w.Status(ctx)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	t, err := w.Count(ctx)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Files, r.Added, r.Deleted = t.Files, t.Added, t.Deleted
	r.Clean, r.Uncommitted = st.Uncommitted == 0, st.Uncommitted
	r.Commits, r.Merged, r.MergedInto = st.Commits, st.Merged, st.MainHead
	return r
}
