package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
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

func init() {
	cli.Register(&cli.Verb{
		Name:    "worktree",
		Usage:   "clean [--dry-run] [--json]",
		Summary: "clean: remove the worktrees of panes that hold nothing unsaved",
		Run: func(g *cli.Globals, args []string) error {
			if len(args) == 0 || args[0] != "clean" {
				return cli.Usagef("worktree: give a subcommand: clean (remove the worktrees whose branch is merged or that have no changes)")
			}
			fs := cli.NewFlags(g, "worktree")
			dry := fs.Bool("dry-run", false, "say what would be removed, remove nothing")
			asJSON := fs.Bool("json", false, "print a JSON array")
			if err := cli.ParseFlags(fs, args[1:]); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("worktree clean takes no arguments, got %q", strings.Join(fs.Args(), " "))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			users := worktreeUsers()
			out, err := worktree.Clean(ctx, worktree.Root(), worktree.CleanOptions{DryRun: *dry, InUse: func(w worktree.Worktree) string {
				return users(w.Path)
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
		},
	})
}

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

// worktreeUsers finds who works in a worktree: a pane of a running session
// started in it (each session in the socket directory is asked), or any
// process of this user whose current directory is in it (a pane whose
// worktree melmux does not know of, a person's own shell). It returns the
// lookup: a description, or "" for nobody.
func worktreeUsers() func(path string) string {
	panes := map[string]string{}
	var mu sync.Mutex // guards panes
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
				if p.Worktree != nil {
					panes[*p.Worktree] = fmt.Sprintf("pane %d of session %s", p.ID, c.Session)
				}
			}
		})
	}
	wg.Wait()
	cwds := processCwds()
	return func(path string) string {
		if who := panes[path]; who != "" {
			return who
		}
		for _, pc := range cwds {
			if pc.cwd == path || strings.HasPrefix(pc.cwd, path+string(filepath.Separator)) {
				return fmt.Sprintf("process %d (%s) works in it", pc.pid, pc.name)
			}
		}
		return ""
	}
}

// processCwd is a process and its current directory.
type processCwd struct {
	pid  int
	name string
	cwd  string
}

// processCwds lists the current directories of the processes this user may
// see in /proc (none where there is no /proc), but this one's.
func processCwds() []processCwd {
	ents, _ := os.ReadDir("/proc")
	var out []processCwd
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		out = append(out, processCwd{pid: pid, name: strings.TrimSpace(string(comm)), cwd: cwd})
	}
	return out
}
