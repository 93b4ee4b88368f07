package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
	"github.com/melmux/melmux/layout"
	"github.com/melmux/melmux/worktree"
)

// restore rebuilds, in a fresh server, the session its state file saved:
// the same tabs, splits and pane ids, each pane's program started again in
// its directory as sessionstate.Pane.Launch says (melmux agents resumed from
// their transcripts, Claude Code with --continue, Codex with resume --last,
// both with their settings and without their first prompt, shells as
// shells), with the pane's last screen written above, dimmed, as a
// reminder. A pane whose program cannot start gets the default shell and a
// note saying why; one whose directory is gone starts in the home directory.
func init() {
	register(&Command{Name: "restore", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.RestoreParams
		if err := decodeParams("restore", raw, &p); err != nil {
			return nil, err
		}
		if err := checkSize("restore", p.Cols, p.Rows, true); err != nil {
			return nil, err
		}
		if s.saver == nil {
			return nil, errorf(proto.CodeFailed, "restore: this server keeps no state file, so it has nothing to restore")
		}
		st, err := sessionstate.Read(s.saver.path)
		if err != nil {
			return nil, errorf(proto.CodeFailed, "restore: %v", err)
		}
		l, err := layout.Parse(st.Layout)
		if err != nil {
			return nil, errorf(proto.CodeFailed, "restore: the saved layout of %s: %v", s.saver.path, err)
		}
		saved := map[int]sessionstate.Pane{}
		for _, sp := range st.Panes {
			saved[sp.ID] = sp
		}
		ids := l.Panes()
		if !sameIDs(ids, saved) {
			return nil, errorf(proto.CodeFailed, "restore: %s is inconsistent: its layout holds panes %v, its list %d panes", s.saver.path, ids, len(saved))
		}
		env := p.Env
		if env == nil {
			env = s.env
		}
		wts := openWorktrees(ctx, st.Panes)
		res := proto.RestoreResult{Session: s.name, Saved: st.Saved.Format(time.RFC3339)}
		var typing []typed
		err = s.withLockErr(func() error {
			if s.started || s.shutdown {
				return errorf(proto.CodeFailed, "restore: session %q already has panes; restore rebuilds a session that is gone", s.name)
			}
			s.cols, s.rows = pick(p.Cols, st.Cols, proto.MinSessionCols, proto.MaxSessionCols, s.cols), pick(p.Rows, st.Rows, proto.MinSessionRows, proto.MaxSessionRows, s.rows)
			s.layout = l
			sizes := paneSizesLocked(s)
			for _, id := range ids {
				since := time.Now()
				e, rp, line := s.restorePaneLocked(id, saved[id], wts[id], st.Saved, env, sizes[id])
				rp.Tab, _ = s.layout.TabOf(id)
				res.Panes = append(res.Panes, rp)
				if e != nil {
					e.agentDo(func() { e.hushLocked(line != "") }) // what it comes back in is no news
				}
				if e != nil && line != "" {
					typing = append(typing, typed{e, line, since})
				}
				s.nextID = max(s.nextID, id+1)
			}
			if len(s.panes) == 0 {
				s.layout = layout.New()
				return errorf(proto.CodeFailed, "restore: no pane could be started: %s", res.Panes[0].Note)
			}
			s.relayoutLocked()
			return nil
		})
		if err != nil {
			return nil, err
		}
		s.saver.adopt()
		for _, t := range typing {
			go func() {
				defer s.recovered("typing into a restored pane", nil)
				t.send(s.done)
				t.e.agentDo(t.e.restoreTypedLocked) // input from now on is someone's
			}()
		}
		s.log.Info("session restored", "panes", len(res.Panes), "saved", st.Saved)
		return res, nil
	}})
}

// sameIDs says the layout's panes are the saved ones.
func sameIDs(ids []int, saved map[int]sessionstate.Pane) bool {
	if len(ids) != len(saved) {
		return false
	}
	for _, id := range ids {
		if _, ok := saved[id]; !ok {
			return false
		}
	}
	return true
}

// pick is the asked size, else the saved one when it is in range, else def.
func pick(asked, saved, lo, hi, def int) int {
	switch {
	case asked > 0:
		return asked
	case saved >= lo && saved <= hi:
		return saved
	}
	return def
}

// paneSizesLocked is every pane's content size as the layout places it; a
// pane hidden by a zoom gets the whole area, as it would unzoomed alone.
func paneSizesLocked(s *Server) map[int][2]int {
	w, h := s.paneAreaLocked()
	sizes := map[int][2]int{}
	for _, t := range s.layout.Tabs() {
		for _, pl := range s.layout.Place(t.Index, w, h) {
			sizes[pl.Pane] = [2]int{pl.Content.W, pl.Content.H}
		}
		for _, id := range t.Panes {
			if _, ok := sizes[id]; !ok {
				sizes[id] = [2]int{w, max(h-1, 1)}
			}
		}
	}
	return sizes
}

// typed is a command line to type into a restored pane once it has drawn.
type typed struct {
	e     *paneEntry
	line  string
	since time.Time // when the pane started
}

// send types the line once the pane's program has drawn its prompt (or a
// few seconds passed), as a person would.
func (t typed) send(done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	waitFirstScreen(ctx, t.e.p, t.since)
	_ = t.e.p.Type([]byte(t.line + "\r")) // Best effort: a pane that ended takes nothing.
}

// restoredWorktree is a saved pane's worktree opened again, or why not.
type restoredWorktree struct {
	wt   *worktree.Worktree
	note string
}

// openWorktrees opens the worktrees of the saved panes (git runs: before
// Server.mu is taken).
func openWorktrees(ctx context.Context, panes []sessionstate.Pane) map[int]restoredWorktree {
	out := map[int]restoredWorktree{}
	for _, sp := range panes {
		if sp.Worktree == "" {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, worktreeWait)
		w, err := worktree.Open(wctx, sp.Worktree)
		cancel()
		if err != nil {
			out[sp.ID] = restoredWorktree{note: fmt.Sprintf("its worktree %s could not be opened (%v): the pane has none", sp.Worktree, err)}
			continue
		}
		out[sp.ID] = restoredWorktree{wt: &w}
	}
	return out
}

// restorePaneLocked starts saved pane sp again as pane id at size, in its
// worktree when it had one. It returns the pane (nil when nothing could
// start), what became of it and a line to type into it once it has drawn.
func (s *Server) restorePaneLocked(id int, sp sessionstate.Pane, rw restoredWorktree, saved time.Time, env []string, size [2]int) (*paneEntry, proto.RestoredPane, string) {
	launch := sp.Launch(s.self, s.shell)
	rp := proto.RestoredPane{ID: id, How: launch.How}
	var notes []string
	if rw.note != "" {
		notes = append(notes, rw.note)
	}
	if launch.Note != "" {
		notes = append(notes, launch.Note)
		s.log.Warn("restore: a command line was not typed into a pane", "pane", id, "why", launch.Note)
	}
	cwd := sp.Cwd
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		home, herr := os.UserHomeDir()
		if herr != nil {
			home = "/"
		}
		notes = append(notes, fmt.Sprintf("its directory %s is gone; started in %s", cwd, home))
		cwd = home
	}
	// A title over proto.MaxTitle (a file written before the bound, or by
	// hand) would go into every list_panes answer and border.
	title := printable(clipTitle(sp.Title))
	if len(sp.Title) > proto.MaxTitle {
		notes = append(notes, fmt.Sprintf("its saved title of %d bytes is clipped to the %d a title may be", len(sp.Title), proto.MaxTitle))
	}
	spec := spawnSpec{argv: launch.Argv, command: showArgv(launch.Argv, s.self), cwd: cwd, title: title, env: env, shell: sp.Shell, worktree: rw.wt}
	spec.preface = reminder(sp, saved, orWords(launch.How, spec.command), notes)
	e, err := s.startPaneLocked(id, spec, size[0], size[1])
	if err != nil {
		notes = append(notes, fmt.Sprintf("%s could not start (%v): the shell runs instead", spec.command, err))
		launch.Type = ""
		spec.argv, spec.command, spec.shell = []string{s.shell}, s.shell, true
		spec.preface = reminder(sp, saved, s.shell, notes)
		e, err = s.startPaneLocked(id, spec, size[0], size[1])
	}
	if err != nil {
		notes = append(notes, fmt.Sprintf("the shell could not start either (%v): the pane is left out", err))
		_ = s.layout.Remove(id) // Best effort: the layout holds id.
		e = nil
	}
	if e != nil {
		s.restoredRemoteLocked(e, sp, spec.argv)
	}
	rp.Command = spec.command
	rp.Note = strings.Join(notes, "; ")
	if e != nil {
		s.log.Info("pane restored", "pane", id, "command", spec.command, "how", launch.How, "note", rp.Note)
	}
	return e, rp, launch.Type
}

// showArgv is an argv as list_panes shows it: the melmux binary by its name.
func showArgv(argv []string, self string) string {
	out := slices.Clone(argv)
	if len(out) > 0 && out[0] == self {
		out[0] = filepath.Base(self)
	}
	return strings.Join(out, " ")
}

// reminderStyle draws the last screen dimmed. The emulator keeps no dim
// attribute (SGR 2), so a grey of the 256-colour palette stands for it.
const reminderStyle = "\x1b[0;38;5;244m"

// orWords is how, or else the command that was run again.
func orWords(how, command string) string {
	if how != "" {
		return how
	}
	return command + ", started again"
}

// reminder is what a restored pane shows above its new program: the pane's
// last screen, dimmed, between a line saying when it was saved and a line
// saying how the pane was started again (and what could not be as saved).
// A pane that showed nothing gets no reminder. Control characters are
// dropped: the file is text, and a query must never reach the emulator.
func reminder(sp sessionstate.Pane, saved time.Time, how string, notes []string) []byte {
	if len(sp.Screen) == 0 && len(notes) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(reminderStyle)
	fmt.Fprintf(&b, "── pane %d as it was at %s ──\r\n", sp.ID, saved.Local().Format("2006-01-02 15:04:05"))
	for _, l := range sp.Screen {
		b.WriteString(printable(l))
		b.WriteString("\r\n")
	}
	tail := append([]string{"restored: " + how}, notes...)
	fmt.Fprintf(&b, "── %s ──\r\n", printable(strings.Join(tail, "; ")))
	b.WriteString("\x1b[0m")
	return []byte(b.String())
}
