package server

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/pane/term"
)

// A turn's reply is looked for once, when a read_agent first gives the
// turn, best source first:
//
//  1. the agent's hook: Claude Code's Stop hook carries the turn's last
//     message whole, Codex's notify its last-assistant-message (melmux adds
//     those hooks when it starts the CLI; hand-made hook lines work too);
//  2. the CLI's own session transcript, found from its process (its
//     environment and working directory: internal/transcript);
//  3. the screen and its history since the message, with the agent's
//     input box, footer, spinner and the echo of the message cut away.
//
// Claude Code and Codex redraw in place, so the screen holds only the end
// of a long reply: the first two sources are what make a reply whole.

const (
	// replyHookWait bounds the wait for the Stop hook after the screen or
	// the status report said the turn ended: the hook is a process the
	// agent starts as it ends the turn.
	replyHookWait = 3 * time.Second
	// replyTranscriptWait bounds the wait for the transcript to show the
	// turn finished (it is written as the agent goes, and may lag).
	replyTranscriptWait = 3 * time.Second
	replyTranscriptLook = 100 * time.Millisecond
)

// transcriptKinds are the agents whose session files transcript reads.
var transcriptKinds = map[string]bool{"claude": true, "codex": true, "gemini": true}

// findReply looks for the reply of turn c of pane e once; the caller
// holds no lock of the server's.
func (s *Server) findReply(ctx context.Context, e *paneEntry, c *cliTurn) {
	var found, hooks bool
	var kind, text, ended string
	var pid int
	var enter, start time.Time
	var mark uint64
	e.agentDo(func() {
		found = c.found
		t := &e.turns
		kind, pid = e.kind, e.kindPID
		hooks = t.hooks || e.ag.hook != nil && !e.ag.hook.At.Before(e.ag.procSince) && !e.ag.procSince.IsZero()
		enter, start, text, mark, ended = c.enter, c.start, c.text, c.mark, c.end
	})
	if found {
		return
	}

	reply, source := "", ""
	if hooks && ended == "idle" {
		reply = s.waitStopHook(ctx, e, enter)
	} else if h := s.stopAfter(e, enter); h != "" {
		reply = h
	}
	if reply != "" {
		source = "hook"
	}
	if reply == "" && transcriptKinds[kind] {
		if r, ok := s.fromTranscript(ctx, e, kind, pid, start, text); ok {
			reply, source = r, "transcript"
		}
	}
	if reply == "" {
		reply, source = screenReply(e.p.Term().TextSince(mark), text), "screen"
	}
	reply = clipReply(reply)
	e.agentDo(func() {
		if !c.found {
			c.reply, c.source, c.found = reply, source, true
		}
	})
}

// stopAfter is the reply of a Stop hook that came after t, "" for none.
func (s *Server) stopAfter(e *paneEntry, t time.Time) string {
	e.agentMu.Lock()
	defer e.agentMu.Unlock()
	if h := e.turns.stop; h != nil && h.at.After(t) {
		return h.text
	}
	return ""
}

// waitStopHook waits, up to replyHookWait, for a Stop hook after enter and
// gives its reply.
func (s *Server) waitStopHook(ctx context.Context, e *paneEntry, enter time.Time) string {
	bound := time.NewTimer(replyHookWait)
	defer bound.Stop()
	for {
		var h *hookReply
		var ch <-chan struct{}
		e.agentDo(func() { h, ch = e.turns.stop, s.agentChanges(e) })
		if h != nil && h.at.After(enter) {
			return h.text
		}
		select {
		case <-ch:
		case <-bound.C:
			return ""
		case <-ctx.Done():
			return ""
		case <-s.done:
			return ""
		}
	}
}

// clipReply bounds a reply, cutting at a rune boundary.
func clipReply(s string) string {
	if len(s) <= maxReplyBytes {
		return s
	}
	cut := maxReplyBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n[the reply was cut here: it is over 256 KB]"
}

// chromeRE holds the patterns of screen chrome: a rule (an input box's
// edge, a section line), a spinner or status line, the hints of an agent's
// footer.
type chromeRE struct {
	ruleLine, spinnerLine, footerLine, bulletLine, promptLine, menuLine *regexp.Regexp
}

// chrome compiles them when a reply is first read from a screen, not in
// every daemon's start.
var chrome = sync.OnceValue(func() *chromeRE {
	return &chromeRE{
		ruleLine:    regexp.MustCompile(`^\s*[─━═╌▄▀-]{10,}\s*$`),
		spinnerLine: regexp.MustCompile(`^\s*[✻✶✳✢✽·*⏺◐◓◑◒⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s+\S.*(…|\.\.\.)`),
		footerLine:  regexp.MustCompile(`(?i)(esc to interrupt|ctrl\+c to|\? for shortcuts|context left|tokens used|accept edits|bypass permissions|^\s*✻\s|^\s*(worked|cooked) for \d)`),
		bulletLine:  regexp.MustCompile(`^\s*([●•✦⏺])\s?`),
		promptLine:  regexp.MustCompile(`^\s*[›❯>](\s|$)`),
		menuLine:    regexp.MustCompile(`^\s*[›❯>]\s*\d+\.\s`), // a question's chosen option, not a prompt
	}
})

// screenReply cuts a turn's reply out of what the pane shows since the
// turn began: after the echo of the message, up to the agent's input box,
// without spinner and footer lines; when the agent marks its messages with
// a bullet (Claude Code's ●, Codex's •, Gemini CLI's ✦), the last such
// message.
func screenReply(txt term.Text, message string) string {
	lines := append(append([]string(nil), txt.History...), txt.Lines...)
	first := 0
	if probe := probeOf(message); probe != "" {
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(squeeze(lines[i]), tail(probe, probeRunes/2)) {
				first = i + 1
				break
			}
		}
	}
	re := chrome()
	var body []string
	for _, l := range lines[first:] {
		if re.ruleLine.MatchString(l) {
			if len(body) == 0 {
				continue // the bottom edge of the box the message was typed in
			}
			break
		}
		if re.promptLine.MatchString(l) && !re.menuLine.MatchString(l) && len(body) > 0 {
			break // the agent's input line: what follows is its footer
		}
		if re.spinnerLine.MatchString(l) || re.footerLine.MatchString(l) {
			continue
		}
		body = append(body, strings.TrimRight(l, " "))
	}
	last := -1
	for i, l := range body {
		if re.bulletLine.MatchString(l) {
			last = i
		}
	}
	if last >= 0 {
		body = body[last:]
		body[0] = re.bulletLine.ReplaceAllString(body[0], "")
		for i := 1; i < len(body); i++ {
			if body[i] != "" && !strings.HasPrefix(body[i], "  ") {
				body = body[:i] // the message's lines are indented under its bullet
				break
			}
			body[i] = strings.TrimPrefix(body[i], "  ")
		}
	}
	return strings.Trim(strings.Join(body, "\n"), "\n ")
}
