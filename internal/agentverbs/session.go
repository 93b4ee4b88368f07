package agentverbs

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/orchestrator"
)

// session ties an agent to the pane it runs in: it registers with the
// session server (which then lists it, shows its state and lets a lead send
// it messages and read its replies), takes its messages from the session's
// queue, and reports its state. The registration lasts as long as the
// connection: when the agent's process ends, the server marks it exited.
type session struct {
	c    *client.Client
	pane int
	id   string
	// Transcript is the path of the agent's transcript, which a reply too
	// big for one report is clipped to name ("" names none).
	Transcript string

	mu   sync.Mutex // guards last
	last proto.AgentReportParams
}

// joinSession connects to the session at sock and registers the agent for
// pane.
func joinSession(ctx context.Context, sock string, reg proto.AgentRegisterParams) (*session, error) {
	c, err := client.Dial(sock)
	if err != nil {
		return nil, err
	}
	if err := c.Call(ctx, "agent_register", reg, nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("register with the session: %w", err)
	}
	return &session{c: c, pane: reg.Pane, id: reg.ID, last: proto.AgentReportParams{Pane: reg.Pane, ID: reg.ID}}, nil
}

// Post queues a message for this agent, as a person typed it (from
// "person") or as its starting task ("task"), and returns its turn id.
func (s *session) Post(ctx context.Context, text, from string) (int, error) {
	var r proto.SendAgentResult
	if err := s.c.Call(ctx, "send_agent", proto.SendAgentParams{Pane: s.pane, Text: text, From: from}, &r); err != nil {
		return 0, err
	}
	return r.Turn, nil
}

// Next blocks until the next message for the agent arrives.
func (s *session) Next(ctx context.Context) (proto.AgentMessage, error) {
	var m proto.AgentMessage
	err := s.c.Call(ctx, "agent_next", proto.AgentNextParams{Pane: s.pane, ID: s.id}, &m)
	return m, err
}

// Report tells the session the agent's state. Fields left zero keep their
// last reported value, except Reply and Error, which belong to one turn.
func (s *session) Report(ctx context.Context, state string, turn int, reply string, turnErr error, legs int, u orchestrator.Usage) error {
	var r proto.AgentReportParams
	locked(&s.mu, func() {
		r = s.last
		r.State, r.Turn, r.Reply, r.Error = state, turn, reply, ""
		if turnErr != nil {
			r.Error = turnErr.Error()
		}
		r.Legs, r.InputTokens, r.OutputTokens = legs, u.InputTokens, u.OutputTokens
		s.last = r
	})
	r = fitReport(r, s.Transcript)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return s.c.Call(ctx, "agent_report", r, nil)
}

// Close ends the registration.
func (s *session) Close() error { return s.c.Close() }

// reportRoom is what one agent_report line may take: the session refuses a
// request line over proto.MaxLine (answering request_too_large, which the
// agent, waiting for the answer to its id, never saw), so a reply that
// makes the line longer is clipped. The room left out covers the line's
// envelope (id, method) and its newline.
const reportRoom = proto.MaxLine - 256

// maxReportError bounds the error of a turn in a report; the reply gets
// the rest of the room.
const maxReportError = 64 << 10

// fitReport returns r clipped to fit one request line: the error to
// maxReportError, then the reply to the room left, each ending with a note
// saying how much was left out; the reply's note says where the whole of it
// is (the transcript's last turn record holds it). Sizes are counted as
// encoding/json writes the line, which escapes <, > and & in six bytes
// each: 500 KiB of HTML is over 1 MiB on the line.
func fitReport(r proto.AgentReportParams, transcript string) proto.AgentReportParams {
	if reportSize(r) <= reportRoom {
		return r
	}
	errText := r.Error
	r.Error = clipJSON(errText, maxReportError, func(cut int) string {
		return fmt.Sprintf("\n[melmux: the error was cut here: it is %d bytes, and the last %d were left out]", len(errText), cut)
	})
	reply := r.Reply
	r.Reply = ""
	room := reportRoom - reportSize(r) - len(`,"reply":`)
	where := "the agent's transcript"
	if transcript != "" {
		where += ", " + transcript + ` (its last "turn" record)`
	}
	r.Reply = clipJSON(reply, room, func(cut int) string {
		return fmt.Sprintf("\n\n[melmux: the reply was cut here to fit the session's %d MiB report: it is %d bytes, and the last %d were left out; the whole reply is in %s]",
			proto.MaxLine>>20, len(reply), cut, where)
	})
	return r
}

// reportSize is the length of r's JSON, as the request line holds it.
func reportSize(r proto.AgentReportParams) int {
	b, err := json.Marshal(r)
	if err != nil {
		return 0
	}
	return len(b)
}

// clipJSON cuts s, at a rune boundary, to the longest start that with
// note(bytes left out) after it is a JSON string of at most room bytes; s
// whose JSON fits is returned as it is.
func clipJSON(s string, room int, note func(cut int) string) string {
	if jsonStringLen(s) <= room {
		return s
	}
	used := jsonStringLen(note(len(s))) // the longest note, quotes included
	keep := 0
	for keep < len(s) {
		c, size := utf8.DecodeRuneInString(s[keep:])
		n := jsonRuneLen(c, size)
		if used+n > room {
			break
		}
		used += n
		keep += size
	}
	return s[:keep] + note(len(s)-keep)
}

// jsonStringLen is the length of s as a JSON string (quotes included), as
// encoding/json writes it, or a little more.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		n += jsonRuneLen(c, size)
		i += size
	}
	return n
}

// jsonRuneLen is the bytes encoding/json writes for the rune c, of size
// bytes in the text: control characters, <, >, &, U+2028, U+2029 and a
// byte that is not UTF-8 take six (\u003c, \ufffd; \b and \f, written in
// two since Go 1.22, are counted six), a quote, a backslash, \n, \r and \t
// two.
func jsonRuneLen(c rune, size int) int {
	switch {
	case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
		return 2
	case c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029':
		return 6
	case c == utf8.RuneError && size == 1:
		return 6
	}
	return size
}
