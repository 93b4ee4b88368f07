package server

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/layout"
	"github.com/melmux/melmux/worktree"
)

// Worktree panes: open_pane and spawn_agent with a worktree start their pane
// in a new git worktree; borders show what each one changed.

// worktreeWait bounds the git commands that make a worktree.
const worktreeWait = 30 * time.Second

// countTTL is how old a worktree pane's +A −D may grow before a frame that
// shows it asks git again: git reads the worktree at most this often per
// pane, and only while a client draws the pane.
const countTTL = 3 * time.Second

// countWait bounds one count: a slow disk makes the border late, never stuck.
const countWait = 10 * time.Second

// wtCount is a worktree pane's +A −D as last counted (guarded by Server.mu).
type wtCount struct {
	totals  worktree.Totals
	known   bool      // a count has finished
	at      time.Time // when the last count began
	running bool      // a count is under way
	failing bool      // the last count failed (logged once until one works)
}

// spawnIn is spawn for open_pane and spawn_agent: with a worktree asked for
// (on, or a name given), it first makes the worktree from the repository of
// the directory the pane would start in, named name or, when that is empty,
// stem(id) with a suffix if taken, and starts the pane in it. A pane that
// then fails to start takes its fresh worktree and branch away with it.
func (s *Server) spawnIn(ctx context.Context, method string, spec spawnSpec, on bool, name string, stem func(id int) string) (*paneEntry, layout.AddResult, error) {
	if !on && name == "" {
		return s.spawn(spec)
	}
	if name != "" {
		if err := worktree.CheckName(name); err != nil {
			return nil, layout.AddResult{}, errorf(proto.CodeBadParams, "%s: worktree_name: %v", method, err)
		}
	}
	dir := spec.cwd
	var err error
	s.withLock(func() {
		if spec.target != 0 {
			if _, err = s.lookupLocked(spec.target); err != nil {
				return
			}
		}
		if dir == "" {
			dir = s.startDirLocked(spec.target)
		}
		spec.id = s.reserveIDLocked()
	})
	if err != nil {
		return nil, layout.AddResult{}, err
	}

	wctx, cancel := context.WithTimeout(ctx, worktreeWait)
	defer cancel()
	root := worktree.Root()
	var (
		wt    worktree.Worktree
		start string
	)
	if name != "" {
		wt, start, err = worktree.Add(wctx, root, dir, name)
	} else {
		wt, start, err = worktree.AddFree(wctx, root, dir, stem(spec.id))
	}
	if err != nil {
		code := proto.CodeFailed
		if errors.Is(err, worktree.ErrExists) || errors.Is(err, worktree.ErrBadName) {
			code = proto.CodeBadParams
		}
		return nil, layout.AddResult{}, errorf(code, "%s: worktree: %v", method, err)
	}
	spec.cwd, spec.worktree = start, &wt
	e, res, err := s.spawn(spec)
	if err != nil {
		if rerr := wt.Remove(context.WithoutCancel(wctx)); rerr != nil {
			s.log.Warn("remove the worktree of a pane that did not start", "worktree", wt.Path, "err", rerr)
		}
		return nil, res, err
	}
	s.log.Info("pane in a worktree", "pane", e.p.ID(), "worktree", wt.Path, "branch", wt.Branch, "base", wt.Base)
	if wt.Note != "" {
		// A half-made worktree of the name was removed first: the caller
		// is told, as of a layout that differs from the one asked for.
		s.log.Info("worktree: "+wt.Note, "pane", e.p.ID(), "worktree", wt.Path)
		res.Note = strings.TrimPrefix(res.Note+"; worktree "+wt.Name+": "+wt.Note, "; ")
	}
	return e, res, nil
}

// diffCountLocked is what a frame shows of worktree pane e's changes: the
// last count, nil before the first. When that count is older than countTTL
// it starts another on its own goroutine (the frame never waits for git),
// which redraws the clients once it finds something new. next is lowered to
// when the count goes stale, so a client showing the pane redraws then and
// the border stays current while nothing else moves.
func (s *Server) diffCountLocked(e *paneEntry, next *time.Duration) *ui.DiffCount {
	if e.wt == nil {
		return nil
	}
	c := &e.wtCount
	age := time.Since(c.at)
	if !c.running && age >= countTTL && !s.shutdown {
		c.running, c.at, age = true, time.Now(), 0
		s.counts.Add(1)
		go s.countWorktree(e)
	}
	if stale := countTTL - age; *next == 0 || stale < *next {
		*next = max(stale, time.Millisecond)
	}
	if !c.known {
		return nil
	}
	return &ui.DiffCount{Added: c.totals.Added, Deleted: c.totals.Deleted}
}

// countWorktree counts e's worktree changes and stores the count. A panic
// is logged and leaves the border as it was: it runs on no request's
// goroutine, and must not end the session.
func (s *Server) countWorktree(e *paneEntry) {
	defer s.counts.Done()
	ctx, cancel := context.WithTimeout(s.countsCtx, countWait)
	defer cancel()
	var t worktree.Totals
	err := s.confine("count worktree changes", func() (err error) {
		t, err = e.wt.Count(ctx)
		return err
	})
	var changed, report bool
	s.withLock(func() {
		e.wtCount.running = false
		changed = err == nil && (!e.wtCount.known || t != e.wtCount.totals)
		if err == nil {
			e.wtCount.totals, e.wtCount.known = t, true
		}
		report = err != nil && !e.wtCount.failing
		e.wtCount.failing = err != nil
	})
	if report {
		s.log.Warn("count worktree changes (said once until a count works again)", "pane", e.p.ID(), "worktree", e.wt.Path, "err", err)
	}
	if changed {
		s.invalidate()
	}
}

// noteCount stores totals just counted by a diff, sparing the next count.
func (s *Server) noteCount(e *paneEntry, t worktree.Totals) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := !e.wtCount.known || t != e.wtCount.totals
	e.wtCount.totals, e.wtCount.known, e.wtCount.at = t, true, time.Now()
	if changed {
		s.invalidateLocked()
	}
}

// paneDiff computes the changes of pane id's worktree.
func (s *Server) paneDiff(ctx context.Context, method string, id int, opts worktree.DiffOptions) (*paneEntry, worktree.Changes, error) {
	e, err := s.lookup(id)
	if err != nil {
		return nil, worktree.Changes{}, err
	}
	if e.wt == nil {
		return nil, worktree.Changes{}, errorf(proto.CodeFailed, "%s: pane %d has no worktree (a pane gets one when opened with open-pane --worktree or spawn-agent --worktree)", method, id)
	}
	ch, err := e.wt.Diff(ctx, opts)
	if err != nil {
		return nil, ch, errorf(proto.CodeFailed, "%s: pane %d's worktree %s: %v", method, id, e.wt.Path, err)
	}
	s.noteCount(e, ch.Totals)
	return e, ch, nil
}

// showDiff opens pane id's diff (the files, then the patch) in an overlay
// for client c. git runs here, on its own goroutine; the client's loop opens
// the overlay on its next frame.
func (c *client) showDiff(id int) {
	ctx, cancel := context.WithTimeout(context.Background(), promptTimeout)
	defer cancel()
	cols, _ := c.tty.size()
	var ch worktree.Changes
	err := c.s.confine("diff", func() (err error) {
		_, ch, err = c.s.paneDiff(ctx, "diff", id, worktree.DiffOptions{Stat: true, Patch: true, StatWidth: cols})
		return err
	})
	switch {
	case err != nil:
		c.say("%v", err)
		c.invalidate()
		return
	case ch.Files == nil:
		c.say("pane %d's worktree has no changes", id)
		c.invalidate()
		return
	}
	lines := diffLines(ch.Text)
	if ch.Truncated {
		lines = append(lines, ui.DiffLine{Text: "… the diff is cut at 2 MiB; `melmux diff` or git shows the rest"})
	}
	locked(&c.msgMu, func() { c.diff = lines })
	c.invalidate()
}

// diffKinds maps the worktree package's line kinds to the UI's.
var diffKinds = map[worktree.LineKind]ui.DiffKind{
	worktree.LineText: ui.DiffText, worktree.LineFile: ui.DiffFile, worktree.LineHeader: ui.DiffHeader,
	worktree.LineHunk: ui.DiffHunk, worktree.LineAdded: ui.DiffAdded, worktree.LineDeleted: ui.DiffDeleted,
	worktree.LineContext: ui.DiffContext,
}

// diffLines classifies the lines of a diff's text for the diff view.
func diffLines(text string) []ui.DiffLine {
	var cls worktree.Classifier
	var out []ui.DiffLine
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		l := ui.DiffLine{Text: line, Kind: diffKinds[cls.Next(line)]}
		if l.Kind == ui.DiffText {
			if _, plus, minus, ok := worktree.StatBar(line); ok {
				l.Plus, l.Minus = len(plus), len(minus)
			}
		}
		out = append(out, l)
	}
	return out
}
