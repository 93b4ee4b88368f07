package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/worktree"
)

// A worktree pane's life after the review: kill_pane with worktree removes
// the worktree with its pane; worktree_commit and worktree_merge are the
// person's own git commands on it (they run the repository's hooks, as the
// person's git would).

// leaveWait bounds how long kill_pane waits for the killed pane's processes
// to leave its worktree before it judges what still works there.
const leaveWait = 3 * time.Second

// worktreeOf is pane id's worktree, or an error naming the verb.
func (s *Server) worktreeOf(method string, id int) (*paneEntry, worktree.Worktree, error) {
	e, err := s.lookup(id)
	if err != nil {
		return nil, worktree.Worktree{}, err
	}
	if e.wt == nil {
		return nil, worktree.Worktree{}, errorf(proto.CodeFailed, "%s: pane %d has no worktree (a pane gets one when opened with open-pane --worktree or spawn-agent --worktree)", method, id)
	}
	return e, *e.wt, nil
}

// killWithWorktree is kill_pane with worktree: the pane, then its worktree
// when that holds no uncommitted work (or force). What would refuse is
// checked before the pane is killed, so a refusal kills nothing; what turns
// up after (a file written as the pane died, a process that outlives it)
// keeps the worktree, and the answer says the pane went and why the
// worktree stayed.
func (s *Server) killWithWorktree(ctx context.Context, p proto.KillPaneParams) (any, error) {
	e, wt, err := s.worktreeOf("kill_pane", p.Pane)
	if err != nil {
		return nil, err
	}
	session := e.p.Status().PID // the pane's program leads the session of its processes
	if !p.Force {
		st, err := wt.Status(ctx)
		switch {
		case err != nil:
			return nil, errorf(proto.CodeFailed, "kill_pane: melmux could not tell what pane %d's worktree %s holds, so nothing was killed: %v", p.Pane, wt.Path, err)
		case st.Uncommitted > 0:
			return nil, errorf(proto.CodeFailed, "kill_pane: pane %d's worktree %s holds uncommitted work: %s; nothing was killed: commit it (`melmux worktree commit -t %d -m MESSAGE`, or c in the C-b D diff view), or give --force to lose it",
				p.Pane, wt.Path, st.UncommittedList(), p.Pane)
		case st.Submodules > 0:
			return nil, errorf(proto.CodeFailed, "kill_pane: pane %d's worktree %s has submodules, whose work melmux does not judge; nothing was killed: give --force to remove it anyway", p.Pane, wt.Path)
		}
		if who := s.othersIn(wt.Path, session); who != "" {
			return nil, errorf(proto.CodeFailed, "kill_pane: %s in pane %d's worktree %s and is not the pane's, so it would outlive it; nothing was killed: end it first, or give --force",
				who, p.Pane, wt.Path)
		}
	}
	last, err := s.removePane(p.Pane, true)
	if err != nil {
		return nil, err
	}
	res := proto.KillPaneWorktreeResult{KillPaneResult: proto.KillPaneResult{Pane: p.Pane, SessionEnded: last}, Worktree: wt.Path}
	if held := leftIn(ctx, wt.Path); len(held) > 0 && !p.Force {
		res.Note = fmt.Sprintf("pane %d was killed, but its worktree %s stays: %s still works in it (end it, then `melmux worktree clean`)", p.Pane, wt.Path, worktree.Names(held))
	} else if r, err := wt.Retire(ctx, p.Force); err != nil {
		res.Note = fmt.Sprintf("pane %d was killed, but its worktree %s stays: %v", p.Pane, wt.Path, err)
		if errors.Is(err, worktree.ErrUncommitted) {
			res.Note += " (written as the pane ended; give --force to lose it)"
		}
	} else {
		res.WorktreeRemoved, res.Branch, res.BranchKept, res.Lost = true, r.Branch, r.BranchKept, r.Lost
		if r.BranchKept {
			res.Note = fmt.Sprintf("its branch %s stays: %s", r.Branch, r.Why)
		}
		s.log.Info("worktree removed with its pane", "pane", p.Pane, "worktree", wt.Path, "branch", r.Branch, "branch_kept", r.BranchKept, "lost", r.Lost)
	}
	if last {
		return thenResult{result: res, then: func() { go s.lastPaneGone("last pane killed") }}, nil
	}
	return res, nil
}

// othersIn says who works in dir besides the processes of session (a
// pane's): another pane of this session, named as one ("pane 1 (its
// process 12 (bash)) works"), or processes outside every pane, by pid and
// command line. "" when nobody does.
func (s *Server) othersIn(dir string, session int) string {
	var others []worktree.Process
	for _, pr := range worktree.Inside(worktree.Processes(), dir) {
		if pr.Session != session {
			others = append(others, pr)
		}
	}
	if len(others) == 0 {
		return ""
	}
	panes := map[int]int{} // a pane program's pid (its processes' session) → the pane
	s.withLock(func() {
		for id, e := range s.panes {
			if st := e.p.Status(); st.Running {
				panes[st.PID] = id
			}
		}
	})
	for _, pr := range others {
		if id, ok := panes[pr.Session]; ok {
			return fmt.Sprintf("pane %d (its %s) works", id, pr)
		}
	}
	if len(others) == 1 {
		return worktree.Names(others) + " works"
	}
	return worktree.Names(others) + " work"
}

// leftIn waits, up to leaveWait, for every process to leave dir, and
// returns those still there: a killed pane's processes take a moment to
// go, what outlives the pane (a daemon it started) stays.
func leftIn(ctx context.Context, dir string) []worktree.Process {
	deadline := time.Now().Add(leaveWait)
	for {
		held := worktree.Inside(worktree.Processes(), dir)
		if len(held) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return held
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// worktreeChanged makes the next frame showing pane e count its worktree
// again, after a commit or a merge changed what it holds against its base.
func (s *Server) worktreeChanged(e *paneEntry) {
	s.withLock(func() { e.wtCount.at = time.Time{} })
	s.invalidate()
}
