package server

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/layout"
	"github.com/melmux/melmux/pane/agentstate"
)

// open_pane runs a command in a new pane split from a target pane (or in a new
// tab) and answers with its first screen, so a lead agent need not poll.
func init() {
	register(&Command{Name: "open_pane", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.OpenPaneParams
		if err := decodeParams("open_pane", raw, &p); err != nil {
			return nil, err
		}
		if err := targetParam("open_pane", p.Target); err != nil {
			return nil, err
		}
		if len(p.Title) > proto.MaxTitle {
			return nil, errorf(proto.CodeBadParams, "open_pane: title is %d bytes, over the %d a title may be (one line, shown in borders and tables)", len(p.Title), proto.MaxTitle)
		}
		var pl *placement
		if p.Host == "" && p.Place && s.agentCommand(p) {
			var err error
			if pl, err = s.place("open_pane", p.Worktree || p.WorktreeName != ""); err != nil {
				return nil, err
			}
			defer pl.done()
			if h := pl.remoteHost(); h != "" {
				p.Host, p.Cwd = h, "" // the lead's directory is this machine's
			}
		}
		if p.Host != "" {
			return s.openRemote(ctx, p, pl)
		}
		var argv []string
		command := p.Command
		switch {
		case len(p.Argv) > 0 && p.Command != "":
			return nil, errorf(proto.CodeBadParams, "open_pane: give command or argv, not both")
		case len(p.Argv) > 0:
			argv = p.Argv
			command = strings.Join(p.Argv, " ")
		default:
			argv = commandArgv(s.shell, p.Command)
			if strings.TrimSpace(command) == "" {
				command = s.shell
			}
		}
		shell := len(p.Argv) == 0 && strings.TrimSpace(p.Command) == ""
		since := time.Now()
		e, res, err := s.spawnIn(ctx, "open_pane", spawnSpec{argv: argv, command: command, cwd: absDir(p.Cwd), title: printable(p.Title),
			env: s.env, target: p.Target, layout: p.Layout, shell: shell, focus: p.Focus},
			p.Worktree, p.WorktreeName, func(id int) string { return "pane-" + strconv.Itoa(id) })
		if err != nil {
			return nil, err
		}
		if pl != nil {
			s.withLock(func() { s.markPlacedLocked(e) })
			pl.done()
		}
		if p.NoWait {
			return placed(e, res, false), nil
		}
		waitFirstScreen(ctx, e.p, since)
		if k, _ := s.rules().KindOfProcs([]agentstate.Proc{{Argv: argv}}); k != "" {
			// An agent CLI takes a message only once it has drawn its
			// prompt: a lead's next call should find it ready.
			s.waitAgentReady(ctx, e.p.ID(), e, agentStartWait, false)
		}
		out := placed(e, res, true)
		if pl != nil {
			out.Host = pl.host
		}
		return out, nil
	}})
}

// targetParam checks the pane a new pane splits (0: the focused one).
func targetParam(method string, target int) error {
	if target < 0 {
		return errorf(proto.CodeBadParams, "%s: target %d is not a pane id", method, target)
	}
	return nil
}

// placed says where a new pane went and, when asked, what it shows.
func placed(e *paneEntry, res layout.AddResult, screen bool) proto.OpenPaneResult {
	cols, rows := e.p.Size()
	out := proto.OpenPaneResult{ID: e.p.ID(), Tab: res.Tab, Layout: string(res.Used), Note: res.Note, Cols: cols, Rows: rows}
	if e.wt != nil {
		out.Worktree, out.Branch = e.wt.Path, e.wt.Branch
	}
	if screen {
		out.Lines = trimTrailingEmpty(e.p.Term().Lines())
	}
	return out
}

// trimTrailingEmpty drops the blank rows under the last line of text, which
// carry nothing for a reader.
func trimTrailingEmpty(lines []string) []string {
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	return lines[:n]
}

// clipTitle cuts a title over proto.MaxTitle bytes (one a program set, or
// a state file held) to fit, at a character's edge, ending it with "…".
func clipTitle(s string) string {
	if len(s) <= proto.MaxTitle {
		return s
	}
	cut := proto.MaxTitle - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// programTitle is the title the pane's program set (OSC 0/2), clipped.
func programTitle(e *paneEntry) string { return clipTitle(e.p.Term().Title()) }

// printable drops control characters from a title: it is shown in borders,
// tables and terminals, where an escape sequence must not arrive.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}
