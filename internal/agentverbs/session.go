package agentverbs

import (
	"context"
	"encoding/json"
	"errors"
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
//
// A connection that ends under a live agent is the session restarting: a
// worker on a host (spawn-agent --host) outlives its local session, whose
// restore links its pane again, and the relay then closes the connections
// the old session held (internal/remote, forward.go). The agent joins
// again (keep): it registers at its last turn, under way or finished, and
// the calls made meanwhile go on the new connection. A session that does
// not take it back within rejoinTimes.within is gone for good, and its
// calls fail saying so.
type session struct {
	sock   string
	reg    proto.AgentRegisterParams // the first registration: who the agent is
	rejoin rejoining
	pane   int
	id     string
	// Transcript is the path of the agent's transcript, which a reply too
	// big for one report is clipped to name ("" names none).
	Transcript string

	mu      sync.Mutex // guards the fields below
	c       *client.Client
	swapped chan struct{} // closed when c is replaced, or gone set
	gone    error         // why the session will not take the agent back
	closed  bool
	last    proto.AgentReportParams // the last report, for joining again
	ended   proto.AgentReportParams // the last report of a turn's end with a reply or an error
}

// rejoining says how long an agent whose connection ended tries to join
// its session again (a day: a session stopped for the night, as a laptop
// is, is restored in the morning; a try every few seconds costs nothing
// meanwhile), how long one try may take, and the waits between tries, from
// wait doubling up to maxWait.
type rejoining struct {
	within, try, wait, maxWait time.Duration
}

// rejoinTimes is what each session is given as it joins.
var rejoinTimes = rejoining{within: 24 * time.Hour, try: 20 * time.Second, wait: 500 * time.Millisecond, maxWait: 5 * time.Second}

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
	state := "waiting"
	if reg.Turn > 0 {
		state = "idle"
	}
	s := &session{sock: sock, reg: reg, rejoin: rejoinTimes, pane: reg.Pane, id: reg.ID, c: c, swapped: make(chan struct{}),
		last: proto.AgentReportParams{Pane: reg.Pane, ID: reg.ID, State: state, Turn: reg.Turn, Legs: reg.Legs,
			InputTokens: reg.InputTokens, OutputTokens: reg.OutputTokens}}
	go s.keep(c)
	return s, nil
}

// keep joins the session again each time the connection c ends under the
// agent, until the agent closes the session or the session is gone.
func (s *session) keep(c *client.Client) {
	for {
		<-c.Done()
		nc, err := s.joinAgain()
		var closed bool
		locked(&s.mu, func() {
			closed = s.closed
			switch {
			case closed:
			case err != nil:
				s.gone = err
			default:
				s.c = nc
			}
			close(s.swapped)
			s.swapped = make(chan struct{})
		})
		if closed && nc != nil {
			nc.Close()
		}
		if closed || err != nil {
			return
		}
		c = nc
	}
}

// joinAgain registers the agent again, where it is, on a new connection,
// trying for s.rejoin.within; nil, nil once the agent closed the session.
func (s *session) joinAgain() (*client.Client, error) {
	deadline := time.Now().Add(s.rejoin.within)
	wait := s.rejoin.wait
	for {
		if s.isClosed() {
			return nil, nil
		}
		c, err := s.joinOnce()
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the connection to the session ended, and the session did not take the agent back within %s "+
				"(it is gone, or was restored without this pane): %w", s.rejoin.within, err)
		}
		time.Sleep(wait)
		wait = min(wait*2, s.rejoin.maxWait)
	}
}

// joinOnce dials the session and registers the agent at its last turn,
// under way or finished, with its counters; a turn that ended with a
// reply is told again, for read_agent to give it (the session that took
// it, if any, is gone).
func (s *session) joinOnce() (*client.Client, error) {
	var last, ended proto.AgentReportParams
	locked(&s.mu, func() { last, ended = s.last, s.ended })
	reg := s.reg
	reg.Turn, reg.Legs, reg.InputTokens, reg.OutputTokens = last.Turn, last.Legs, last.InputTokens, last.OutputTokens
	reg.Working = last.State == "working" && last.Turn > 0
	if last.Turn > 0 {
		reg.Task = "" // queued as turn 1 once, and taken
	}
	c, err := client.DialTimeout(s.sock, s.rejoin.try)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.rejoin.try)
	defer cancel()
	if err := c.Call(ctx, "agent_register", reg, nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("register with the session: %w", err)
	}
	if !reg.Working && ended.Turn == last.Turn && ended.Turn > 0 {
		ended.State = "idle"
		if err := c.Call(ctx, "agent_report", fitReport(ended, s.Transcript), nil); err != nil {
			c.Close()
			return nil, fmt.Errorf("report turn %d's end to the session: %w", ended.Turn, err)
		}
	}
	return c, nil
}

func (s *session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// call makes a call on the session's connection; one that ends under it
// is made again once the agent joined the session again.
func (s *session) call(ctx context.Context, method string, params, result any) error {
	for {
		var c *client.Client
		var swapped chan struct{}
		var gone error
		var closed bool
		locked(&s.mu, func() { c, swapped, gone, closed = s.c, s.swapped, s.gone, s.closed })
		if gone != nil {
			return gone
		}
		err := c.Call(ctx, method, params, result)
		var pe *proto.Error
		if err == nil || closed || ctx.Err() != nil || errors.As(err, &pe) {
			return err
		}
		select {
		case <-c.Done(): // the connection ended: the session restarted, or is gone
		case <-time.After(time.Second):
			return err
		case <-ctx.Done():
			return err
		}
		select {
		case <-swapped:
		case <-ctx.Done():
			return err
		}
	}
}

// Post queues a message for this agent, as a person typed it (from
// "person") or as its starting task ("task"), and returns its turn id.
func (s *session) Post(ctx context.Context, text, from string) (int, error) {
	var r proto.SendAgentResult
	if err := s.call(ctx, "send_agent", proto.SendAgentParams{Pane: s.pane, Text: text, From: from}, &r); err != nil {
		return 0, err
	}
	return r.Turn, nil
}

// Next blocks until the next message for the agent arrives.
func (s *session) Next(ctx context.Context) (proto.AgentMessage, error) {
	var m proto.AgentMessage
	err := s.call(ctx, "agent_next", proto.AgentNextParams{Pane: s.pane, ID: s.id}, &m)
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
		if state != "working" && (r.Reply != "" || r.Error != "") {
			s.ended = r
		}
	})
	r = fitReport(r, s.Transcript)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return s.call(ctx, "agent_report", r, nil)
}

// Close ends the registration.
func (s *session) Close() error {
	var c *client.Client
	locked(&s.mu, func() { s.closed, c = true, s.c })
	return c.Close()
}

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
