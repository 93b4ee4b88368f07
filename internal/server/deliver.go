package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/pane"
	"github.com/melmux/melmux/pane/agentstate"
)

// Delivery to a program that is not a melmux agent (claude, codex, a shell)
// is done as a person would: put the text in its input, see it arrive, then
// press Enter on its own and check that the program took it. Sending text and
// Enter in one burst fails with some agents: codex takes a burst ending in
// Enter for a paste and inserts a newline instead of submitting.
//
// A test shortens deliverEcho, deliverPause and deliverReact through
// Server.tune.
const (
	// deliverEcho bounds the wait for the text to show on screen. The
	// bounds are generous because they only cost time when the program
	// does not react: a busy machine makes Claude Code several seconds late
	// to show text and to take an Enter.
	deliverEcho = 5 * time.Second
	// deliverQuiet is how long the screen must stay still after changing for
	// the text to count as taken in when it is not visible as typed (an agent
	// that shows a long paste as a placeholder).
	deliverQuiet = 300 * time.Millisecond
	// deliverPause separates the text from its Enter.
	deliverPause = 500 * time.Millisecond
	// deliverEnters is how many times Enter is pressed at most, and
	// deliverReact how long each press waits for the program to react.
	deliverEnters = 3
	deliverReact  = 3 * time.Second
	// deliverSettle bounds the wait for the screen after a submission, so
	// the result shows the program at work.
	deliverSettle = 1500 * time.Millisecond
	// deliverReady bounds the wait for a coding agent to finish starting.
	deliverReady = 10 * time.Second
)

// probeRunes is how much of the text's end is looked for on screen: enough to
// be specific, little enough to survive an input box that wraps or scrolls.
const probeRunes = 16

// deliver types text into the program in pane id as a person would and
// reports whether it was submitted.
func (s *Server) deliver(ctx context.Context, id int, e *paneEntry, text string) (proto.SendAgentResult, error) {
	p := e.p
	// The text goes as a paste carries it (ui.PasteText): without its
	// control characters, which could end a bracketed paste early or act
	// as keys. Whether it is a paste is known once the program is ready.
	dropped, ndropped := ui.PasteDropped(text)
	text = strings.TrimRight(ui.PasteText(text), "\n")
	if strings.TrimSpace(text) == "" {
		return proto.SendAgentResult{}, errorf(proto.CodeBadParams, "send_agent: the text is nothing but control characters (the first %s), "+
			"which a message cannot carry; send_keys types keys (<C-c>, <Esc>)", dropped)
	}
	probe := probeOf(text)
	kind := s.agentKind(id, e)
	if kind != "" {
		agentReady(ctx, p)
		s.waitAgentReady(ctx, id, e, deliverReady, true)
	}
	// Typed rather than pasted, each control character would act as the
	// key it is (^C ends a line reader's line, ^U erases it): refused, not
	// left out, since the sender may have meant the key.
	if ndropped > 0 && !p.Term().Modes().BracketedPaste {
		return proto.SendAgentResult{}, errorf(proto.CodeBadParams, "send_agent: nothing was typed: the text holds %d control character(s), the first %s, "+
			"and the program in pane %d takes text as typed keys (it did not enable bracketed paste), where each would act as a key. "+
			"Send the text without them (tab and newline are fine), and keys with send_keys (<C-c>, <Esc>, <C-u>...)", ndropped, dropped, id)
	}
	// An agent asking a person something reads keys as answers: Enter picks
	// the highlighted choice (Claude Code's "1. Yes" runs the command it
	// asked about) and the message is lost. So nothing is typed.
	if screen := agentScreen(p.Term()); kind != "" && agentstate.Detect(screen, time.Hour) == agentstate.Waiting {
		keys := "read_pane shows it"
		if q := agentstate.ParseQuestion(kind, screen); q != nil {
			keys = q.Describe()
		}
		return proto.SendAgentResult{}, errorf(proto.CodeFailed, "send_agent: nothing was typed: %s in pane %d is waiting on a person: %s. "+
			"Answer it first (send_keys(%d, KEY), or `melmux answer -t %d CHOICE`), then send the message again", kind, id, keys, id, id)
	}
	// A message to an agent starts a turn, which read_agent waits for.
	var turn *cliTurn
	if kind != "" {
		mark := p.Term().HistoryTotal()
		e.agentDo(func() {
			if e.turns.cur != nil {
				// The agent takes the message while still at the last
				// one: that one ends here, its reply read from what it
				// left.
				s.endTurnNowLocked(e, "idle")
			}
			turn = e.turns.beginLocked("send_agent", text, time.Now(), mark)
		})
	}
	defer func() {
		if turn == nil {
			return
		}
		e.agentDo(func() {
			if !turn.submitted && e.turns.cur == turn {
				e.turns.cur = nil
				if e.turns.given == turn.id {
					e.turns.given--
				}
			}
		})
	}()
	// An agent already showing that it works (a spinner, an interrupt hint)
	// cannot prove it took the message by showing that again.
	cueBefore := kind != "" && screenCue(agentScreen(p.Term()))

	wrote := time.Now()
	// One bracketed paste when the program asked for it (mode 2004),
	// else typed; either way without the final Enter.
	if err := p.Write(ui.PasteBytes(text, p.Term().Modes())); err != nil {
		return proto.SendAgentResult{}, writeError("send_agent", id, p, err)
	}
	shown := watch(ctx, p, s.tune.deliverEcho, func() (bool, time.Duration) {
		if probe == "" || visible(p.Term().Lines(), probe) {
			return true, 0
		}
		last := p.LastOutput()
		if !last.After(wrote) {
			return false, 0
		}
		quiet := time.Since(last)
		return quiet >= deliverQuiet, deliverQuiet - quiet
	})
	if !sleepCtx(ctx, time.Until(wrote.Add(s.tune.deliverPause))) {
		return proto.SendAgentResult{}, errorf(proto.CodeFailed, "send_agent: cancelled")
	}

	submitted, presses := false, 0
	for presses < deliverEnters && !submitted {
		presses++
		enter := time.Now()
		if turn != nil && presses == 1 {
			e.agentDo(func() { turn.enter = enter })
		}
		if err := p.Write([]byte{'\r'}); err != nil {
			if errors.Is(err, pane.ErrExited) && presses > 1 {
				submitted = true // it went away after an earlier Enter
				break
			}
			return proto.SendAgentResult{}, writeError("send_agent", id, p, err)
		}
		submitted = watch(ctx, p, s.tune.deliverReact, func() (bool, time.Duration) {
			return reacted(p, kind, cueBefore, probe, enter), 0
		})
		if ctx.Err() != nil {
			return proto.SendAgentResult{}, errorf(proto.CodeFailed, "send_agent: cancelled")
		}
	}
	if submitted && turn != nil {
		e.agentDo(func() { turn.submitted = true })
	}
	if submitted {
		p.WaitSettled(ctx, time.Now(), deliverQuiet, deliverQuiet, deliverSettle)
	}

	out := proto.SendAgentResult{Pane: id, Kind: kind, Delivered: submitted,
		Lines: trimTrailingEmpty(p.Term().Lines())}
	if submitted && turn != nil {
		out.Turn = turn.id
	}
	if a, _, _ := s.agentFreshInfo(id, e); a != nil {
		out.Kind, out.State = a.Kind, a.State
	}
	switch {
	case submitted && !p.Status().Running:
		out.Note = fmt.Sprintf("submitted; then the program exited (%s)", exitWords(p.Status()))
	case submitted && out.Turn > 0:
		out.Note = fmt.Sprintf("submitted as turn %d; %s is %s; read_agent(%d) waits for its reply", out.Turn, out.Kind, out.State, id)
	case submitted && out.Kind != "":
		out.Note = fmt.Sprintf("submitted; %s is %s", out.Kind, out.State)
	case submitted:
		out.Note = "submitted; the program reacted to Enter"
	default:
		out.Note = fmt.Sprintf("the text sits typed but unsubmitted in pane %d: the program did not react to Enter %d times", id, presses)
	}
	if !shown {
		out.Note += fmt.Sprintf(" (the text did not show on screen within %s)", s.tune.deliverEcho)
	}
	if ndropped > 0 {
		out.Note += fmt.Sprintf(" (%d control character(s) left out of the paste, the first %s; send_keys types keys)", ndropped, dropped)
	}
	return out, nil
}

// agentReady waits, up to deliverReady, until a coding agent has drawn its
// screen and let it rest for deliverQuiet, or shows itself at work. Keys that
// reach an agent still starting are lost: measured with Claude Code 2.1.328
// sent text and Enter right after it started, the text vanished (and the
// startup drawing passed for a reaction to Enter), or it was kept and every
// Enter ignored.
func agentReady(ctx context.Context, p *pane.Pane) {
	watch(ctx, p, deliverReady, func() (bool, time.Duration) {
		screen := agentScreen(p.Term())
		if strings.TrimSpace(strings.Join(screen.Lines, "")) == "" {
			return false, 0
		}
		if screenCue(screen) {
			return true, 0
		}
		quiet := time.Since(p.LastOutput())
		return quiet >= deliverQuiet, deliverQuiet - quiet
	})
}

// reacted says whether the program took the Enter pressed at enter: an agent
// shows it works or asks something, or the screen changed and the typed text
// left the cursor's line (for a plain program: its echo moved on).
func reacted(p *pane.Pane, kind string, cueBefore bool, probe string, enter time.Time) bool {
	if !p.Status().Running {
		return true
	}
	if !p.LastOutput().After(enter) {
		return false
	}
	screen := agentScreen(p.Term())
	if kind != "" && !cueBefore && screenCue(screen) {
		return true
	}
	if probe == "" || screen.CursorY >= len(screen.Lines) {
		return true
	}
	return !strings.Contains(squeeze(screen.Lines[screen.CursorY]), tail(probe, probeRunes/2))
}

// screenCue reports whether the screen itself says an agent works or waits
// on a person (a spinner, an interrupt hint, a question), ignoring how recent
// its output is.
func screenCue(screen agentstate.Screen) bool {
	return agentstate.Detect(screen, time.Hour) != agentstate.Idle
}

// agentKind is the coding agent pane id runs, "" for none. The program
// status, which may tell it, is read before the pane's agent lock is
// taken, holding no lock.
func (s *Server) agentKind(id int, e *paneEntry) (kind string) {
	var status agentRead
	status.read(e.p, false)
	s.agentFresh(e, func() { kind, _ = s.agentKindFromLocked(e, &status) })
	return kind
}

// probeOf is what of text to look for on screen: the end of its last line
// with any text, without white space (an input box wraps and pads).
func probeOf(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if sq := squeeze(lines[i]); sq != "" {
			return tail(sq, probeRunes)
		}
	}
	return ""
}

// visible reports whether probe shows on the screen, across wrapped rows.
func visible(lines []string, probe string) bool {
	return strings.Contains(squeeze(strings.Join(lines, "")), probe)
}

func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func tail(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// watch calls check at once, at every change of the pane (output, exit) and
// when check asks to look again after a while, until check holds, bound
// passes or ctx ends. It reports whether check held.
func watch(ctx context.Context, p *pane.Pane, bound time.Duration, check func() (bool, time.Duration)) bool {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		ch := p.Changed()
		ok, again := check()
		if ok {
			return true
		}
		recheck := time.NewTimer(again)
		if again <= 0 {
			recheck.Stop() // nothing time-based to look at again
		}
		select {
		case <-ctx.Done():
			recheck.Stop()
			return false
		case <-deadline.C:
			recheck.Stop()
			ok, _ := check() // a last look at the bound
			return ok
		case <-ch:
		case <-recheck.C:
		}
		recheck.Stop()
	}
}

// sleepCtx waits d unless ctx ends first; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
