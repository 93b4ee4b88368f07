package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/pane/agentstate"
)

// Every agent of the session in one place: the agents command (`melmux
// agents`), the attached agents view (C-b a) and the key that goes to the
// agent that has waited on a person longest (C-b A) read the same rows.

// agentsViewEvery is how often an open agents view is drawn again with
// nothing else changing: its FOR column counts seconds.
const agentsViewEvery = time.Second

// agentRowsLocked lists every agent pane: those that need a person first,
// in the order next-waiting visits them, then the others in layout order.
// A row's diff is the worktree's last count. Each pane's agent is decided
// from what ar read of its emulator before Server.mu was taken. Caller
// holds Server.mu, taken through withAgentsRead (not the panes' agent
// locks, which it takes).
func (s *Server) agentRowsLocked(ar *agentsRead, now time.Time) []proto.AgentRow {
	var rows []proto.AgentRow
	var needs []rowNeed
	focused := s.layout.Focused()
	for _, id := range s.layout.Panes() {
		if e, ok := s.panes[id]; ok {
			s.agentFromReadLocked(ar, id, e, func(info *proto.AgentInfo) {
				s.agentRowLocked(ar, id, e, info, now, focused, &rows, &needs)
			})
		}
	}
	// A question first (a permission prompt holds its agent up), then the
	// other waiting agents; the longest waiting first in each.
	sort.SliceStable(needs, func(i, j int) bool {
		if needs[i].question != needs[j].question {
			return needs[i].question
		}
		return needs[i].since.Before(needs[j].since)
	})
	out := make([]proto.AgentRow, 0, len(rows))
	for i, n := range needs {
		rows[n.row].NeedsYou = i + 1
		out = append(out, rows[n.row])
	}
	for _, r := range rows {
		if r.NeedsYou == 0 {
			out = append(out, r)
		}
	}
	return out
}

// rowNeed is an agent row that needs a person, for agentRowsLocked's order.
type rowNeed struct {
	row      int
	question bool
	since    time.Time
}

// agentRowLocked adds pane id's row to rows when it runs an agent (info,
// as decided), and to needs when the agent needs a person. Caller holds
// Server.mu and the pane's agent lock.
func (s *Server) agentRowLocked(ar *agentsRead, id int, e *paneEntry, info *proto.AgentInfo, now time.Time, focused int, rows *[]proto.AgentRow, needs *[]rowNeed) {
	if info == nil {
		return
	}
	s.costLocked(info)
	tab, _ := s.layout.TabOf(id)
	r := proto.AgentRow{Pane: id, Tab: tab, Name: info.Kind, Title: e.title, Focused: id == focused, Agent: *info}
	if a := s.melLocked(e); a != nil {
		r.Name = "mel " + a.role
	}
	if r.Title == "" {
		r.Title = ar.programTitleLocked(id, e)
	}
	if e.ag.engine != nil {
		_, r.Since = e.ag.engine.State()
		r.SinceMS = now.Sub(r.Since).Milliseconds()
	}
	if e.wt != nil {
		r.Worktree, r.Branch = &e.wt.Path, &e.wt.Branch
		if e.wtCount.known {
			r.Diff = &proto.DiffTotals{Added: e.wtCount.totals.Added, Deleted: e.wtCount.totals.Deleted}
		}
	}
	if info.State == string(agentstate.Waiting) {
		switch q := e.turns.q; {
		case info.Question != nil && q != nil && !q.asksLocked():
			// The policy decided it: its key is being typed, nobody
			// needs to come.
		case info.Question != nil:
			*needs = append(*needs, rowNeed{row: len(*rows), question: true, since: info.Question.Since})
		case s.melLocked(e) != nil:
			// A melmux agent waiting with no question is ready for its
			// next message: nobody has to come (agent_notify.go).
		default:
			*needs = append(*needs, rowNeed{row: len(*rows), since: r.Since})
		}
	}
	*rows = append(*rows, r)
}

// countAgentWorktrees counts, now, the changes of every agent pane's
// worktree whose count is older than a border's (countTTL) or was never
// made, so that `melmux agents` shows what the border would, with no client
// attached. The counts run side by side, with no lock held.
func (s *Server) countAgentWorktrees(ctx context.Context) {
	var due []*paneEntry
	s.withAgentsRead(false, func(ar *agentsRead) {
		due = nil
		for id, e := range s.panes {
			if e.wt == nil || time.Since(e.wtCount.at) < countTTL && e.wtCount.known {
				continue
			}
			s.agentFromReadLocked(ar, id, e, func(info *proto.AgentInfo) {
				if info != nil {
					due = append(due, e)
				}
			})
		}
	})
	if len(due) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, countWait)
	defer cancel()
	var wg sync.WaitGroup
	for _, e := range due {
		wg.Go(func() {
			err := s.confine("count worktree changes", func() error {
				t, err := e.wt.Count(ctx)
				if err == nil {
					s.noteCount(e, t)
				}
				return err
			})
			if err != nil {
				s.log.Warn("agents: count worktree changes", "pane", e.p.ID(), "worktree", e.wt.Path, "err", err)
			}
		})
	}
	wg.Wait()
}

// showAgents fills the agents view of client c's frame sc while the view
// is open: the rows as the agents command gives them, each worktree's count
// kept current as a border keeps it. It returns when the frame should be
// drawn again at the latest, lowered to agentsViewEvery so that the times
// move. It runs on the client's loop, which owns c.input.
func (c *client) showAgents(sc *ui.Scene, next time.Duration) time.Duration {
	if !c.input.AgentsOpen() {
		return next
	}
	var rows []proto.AgentRow
	c.s.withAgentsRead(false, func(ar *agentsRead) {
		rows = c.s.agentRowsLocked(ar, time.Now())
		if ar.dropped() {
			return
		}
		for _, r := range rows {
			if e, ok := c.s.panes[r.Pane]; ok && e.wt != nil {
				c.s.diffCountLocked(e, &next)
			}
		}
	})
	v := &ui.AgentsView{Rows: make([]ui.AgentRow, 0, len(rows))}
	for _, r := range rows {
		v.Rows = append(v.Rows, uiAgentRow(r))
	}
	sc.Agents = v
	if next == 0 || next > agentsViewEvery {
		next = agentsViewEvery
	}
	return next
}

// uiAgentRow is what the agents view shows of a row.
func uiAgentRow(r proto.AgentRow) ui.AgentRow {
	a := r.Agent
	out := ui.AgentRow{Pane: r.Pane, Tab: r.Tab, Name: r.Name, State: a.State, Focused: r.Focused, NeedsYou: r.NeedsYou > 0}
	if !r.Since.IsZero() {
		out.For = time.Duration(r.SinceMS) * time.Millisecond
	}
	if r.Branch != nil {
		out.Branch = *r.Branch
	}
	if r.Diff != nil {
		out.Diff = &ui.DiffCount{Added: r.Diff.Added, Deleted: r.Diff.Deleted}
	}
	out.Cost = agentCost(a)
	if q := a.Question; q != nil {
		out.Question = q.Text
		out.Wants = q.Tool
		if q.Input != "" {
			out.Wants += " " + q.Input
		}
		for _, o := range q.Options {
			out.Options = append(out.Options, ui.AgentOption{Key: o.Key, Label: o.Label})
		}
	}
	return out
}

// agentCost says what an agent cost, as the agents view and `melmux agents`
// show it: the price of its tokens in the unit of the [prices] table
// ("0.0123", "1.24"), its tokens when its model has no price ("8.1k tok"),
// "" when it reported none (agents other than Mel's report no tokens).
func agentCost(a proto.AgentInfo) string {
	switch {
	case a.Cost != nil && *a.Cost < 1:
		return fmt.Sprintf("%.4f", *a.Cost)
	case a.Cost != nil:
		return fmt.Sprintf("%.2f", *a.Cost)
	case a.InputTokens+a.OutputTokens > 0:
		return tokenCount(a.InputTokens+a.OutputTokens) + " tok"
	}
	return ""
}

// tokenCount is a count of tokens in a few characters: 950, 8.1k, 1.2M.
func tokenCount(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// nextWaiting focuses the agent that has waited on a person longest (see
// agentRowsLocked's order), passing over the focused pane so that pressing
// the key again goes on to the next one, and says in the status line what
// it asks.
func (s *Server) nextWaiting(c *client) error {
	var msg string
	s.withAgentsRead(false, func(ar *agentsRead) {
		rows := s.agentRowsLocked(ar, time.Now())
		if ar.dropped() {
			return // made again: the focus moves once
		}
		var waiting []proto.AgentRow
		for _, r := range rows {
			if r.NeedsYou > 0 {
				waiting = append(waiting, r)
			}
		}
		var to *proto.AgentRow
		for i := range waiting {
			if !waiting[i].Focused {
				to = &waiting[i]
				break
			}
		}
		switch {
		case len(waiting) == 0:
			msg = "no agent waits on you"
		case to == nil:
			msg = fmt.Sprintf("pane %d, here, is the only agent waiting on you", waiting[0].Pane)
		default:
			s.refocusLocked(func() { _ = s.layout.Focus(to.Pane) })
			msg = fmt.Sprintf("pane %d: %s waiting %s", to.Pane, to.Name, ui.AgeText(time.Duration(to.SinceMS)*time.Millisecond))
			if q := to.Agent.Question; q != nil {
				msg = fmt.Sprintf("pane %d: %s asks %q (%s ago)", to.Pane, to.Name, q.Text, ui.AgeText(time.Since(q.Since)))
			}
		}
	})
	c.say("%s", printable(msg))
	return nil
}

// answerQuestion answers a question from the agents view through the
// answer command, as `melmux answer` does (so it is checked, typed and
// audited the same way), on its own goroutine, and says in the status line
// how it went.
func (c *client) answerQuestion(a ui.AnswerQuestion) {
	defer c.s.recovered("answer from the agents view", func(err error) { c.say("%v", err) })
	ctx, cancel := context.WithTimeout(context.Background(), promptTimeout)
	defer cancel()
	raw, err := c.s.Call(ctx, "answer", proto.AnswerParams{Pane: a.Pane, Choice: a.Choice, Question: a.Question})
	var res proto.AnswerResult
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	switch {
	case err != nil:
		c.say("%s", printable(err.Error()))
	case !res.Gone:
		c.say("pane %d: %s was typed, but the question is still there", a.Pane, printable(res.Option.Key))
	default:
		c.say("pane %d: answered %q with %s (%s)", a.Pane, printable(res.Question.Text), printable(res.Option.Key), printable(res.Option.Label))
	}
	c.invalidate()
}
