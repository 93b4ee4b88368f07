package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
)

// The agents view: every agent pane of the session in one table over the
// panes (C-b a), with its state and for how long, its branch and changes,
// its cost and its question. Enter goes to the selected agent, an option's
// key answers its question. The server fills Scene.Agents anew for every
// frame while the view is open (AgentsOpen), so the table stays live; the
// view itself (open or not, which agent is selected) is this client's.

// AgentRow is one agent in the agents view.
type AgentRow struct {
	Pane, Tab int
	Name      string        // "claude", "mel worker"
	State     string        // working, waiting, idle, exited
	For       time.Duration // how long it has been in State
	Branch    string        // its worktree's branch, "" for none
	Diff      *DiffCount    // its worktree's changes, nil when not known
	Cost      string        // what it cost ("0.0123", "8.1k tok"), "" when not known
	Question  string        // what it asks, "" for nothing
	Wants     string        // the tool and command or file the question is about, "" when not known
	Options   []AgentOption // the question's answers, in screen order
	NeedsYou  bool          // it waits on a person (see Server's next-waiting)
	Focused   bool
}

// AgentOption is one answer to an agent's question: Key in send_keys
// notation ("1", "y<Enter>", "<Esc>").
type AgentOption struct{ Key, Label string }

// AgentsView is the agents view of one frame: the rows, those that need a
// person first, and the selected one (an index into Rows).
type AgentsView struct {
	Rows     []AgentRow
	Selected int
}

// agentsState is the agents view while it is open: the pane of the
// selected agent, kept by id so that the selection follows its agent when
// the rows move; 0 selects the first row.
type agentsState struct{ pane int }

// AgentsOpen reports whether the agents view is open: the server then
// fills Scene.Agents for each frame.
func (in *Input) AgentsOpen() bool { return in.agents != nil }

// CloseAgents closes the agents view.
func (in *Input) CloseAgents() { in.agents = nil }

// toggleAgents opens the agents view, or closes it when it is open.
func (in *Input) toggleAgents() {
	if in.agents != nil {
		in.agents = nil
		return
	}
	in.agents, in.help = &agentsState{}, false
}

// selected is the index of the selected row of v, -1 for none.
func (st *agentsState) selected(v *AgentsView) int {
	if v == nil || len(v.Rows) == 0 {
		return -1
	}
	for i, r := range v.Rows {
		if r.Pane == st.pane {
			return i
		}
	}
	return 0
}

// optionFor is the option of row r whose key is the rune typed, as a
// person reads the key: "y" for "y<Enter>", case aside.
func (r *AgentRow) optionFor(k rune) (AgentOption, bool) {
	for _, o := range r.Options {
		key := strings.TrimSuffix(o.Key, "<Enter>")
		if len([]rune(key)) == 1 && strings.EqualFold(key, string(k)) {
			return o, true
		}
	}
	return AgentOption{}, false
}

// agentsKey handles a key in the agents view: the arrows (and j k) move
// the selection, Enter goes to the selected agent, an option's key answers
// its question, q or Escape closes. An option's key wins over j, k and q.
func (in *Input) agentsKey(k KeyID, sc *Scene) []Action {
	var v *AgentsView
	if sc != nil {
		v = sc.Agents
	}
	i := in.agents.selected(v)
	move := func(to int) []Action {
		if i >= 0 {
			to = min(max(to, 0), len(v.Rows)-1)
			in.agents.pane = v.Rows[to].Pane
		}
		return []Action{Redraw{}}
	}
	if k.Key == tcell.KeyRune && k.Mod&^tcell.ModShift == 0 {
		if i >= 0 {
			if o, ok := v.Rows[i].optionFor(k.Rune); ok {
				r := v.Rows[i]
				in.msg = "pane " + strconv.Itoa(r.Pane) + ": answering " + o.Label
				return []Action{AnswerQuestion{Pane: r.Pane, Question: r.Question, Choice: o.Key}, Redraw{}}
			}
		}
		switch k.Rune {
		case 'j':
			return move(i + 1)
		case 'k':
			return move(i - 1)
		case 'g':
			return move(0)
		case 'G':
			return move(len(v.Rows) - 1)
		case 'q':
			in.agents = nil
			return []Action{Redraw{}}
		}
		switch {
		case i < 0:
			in.msg = "no agent to answer"
		case v.Rows[i].Question == "":
			in.msg = "pane " + strconv.Itoa(v.Rows[i].Pane) + " asks nothing"
		default:
			in.msg = fmt.Sprintf("%q answers nothing in pane %d: its options are %s", string(k.Rune), v.Rows[i].Pane, optionList(v.Rows[i].Options))
		}
		return []Action{Redraw{}}
	}
	switch k.Key {
	case tcell.KeyUp:
		return move(i - 1)
	case tcell.KeyDown:
		return move(i + 1)
	case tcell.KeyHome, tcell.KeyPgUp:
		return move(0)
	case tcell.KeyEnd, tcell.KeyPgDn:
		if v != nil {
			return move(len(v.Rows) - 1)
		}
	case tcell.KeyEnter:
		if i < 0 {
			in.msg = "no agent to go to"
			return []Action{Redraw{}}
		}
		in.agents = nil
		return []Action{FocusPane{Pane: v.Rows[i].Pane}, Redraw{}}
	case tcell.KeyEsc:
		in.agents = nil
	}
	return []Action{Redraw{}}
}

// optionList names options as a person types them: "1 Yes, 2 No".
func optionList(opts []AgentOption) string {
	var parts []string
	for _, o := range opts {
		parts = append(parts, strings.TrimSuffix(o.Key, "<Enter>")+" "+o.Label)
	}
	if len(parts) == 0 {
		return "none that a key answers"
	}
	return strings.Join(parts, ", ")
}

// AgeText says a duration as the agents view and `melmux agents` do: 42s,
// 3m05s, 2h07m.
func AgeText(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

const agentsTitle = " agents "

// agentsHint is the view's keys, in its top border.
const agentsHint = " ↑↓ select · Enter go · option key answers · q close "

// drawAgents draws the agents view over the pane area (rows rows from the
// top): a border with the keys, a table of the agents (the selected one
// reversed, the state of one that waits on a person in the attention
// colour) and, at the bottom, the selected agent's question with the keys
// that answer it.
func drawAgents(s tcell.Screen, sc *Scene, st StatusStyle, cols, rows int) {
	v := sc.Agents
	if cols < 4 || rows < 3 {
		return
	}
	frame := tcell.StyleDefault.Foreground(tcolor(st.Focus)).Bold(true)
	body := tcell.StyleDefault
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			putCell(s, x, y, " ", body)
		}
	}
	for x := 0; x < cols; x++ {
		putCell(s, x, 0, "─", frame)
	}
	x := putStr(s, 1, 0, cols, agentsTitle, frame)
	if hw := widths.StringWidth(agentsHint); x+hw+1 <= cols {
		putStr(s, cols-hw-1, 0, cols, agentsHint, frame)
	}
	if len(v.Rows) == 0 {
		putStr(s, 1, 2, cols, "No agent runs in this session: Claude Code, Codex, Gemini CLI, aider and Mel agents show here.", body)
		return
	}
	table := agentTable(v.Rows)
	colw := make([]int, len(table[0]))
	for _, line := range table {
		for c, cell := range line {
			colw[c] = max(colw[c], widths.StringWidth(cell))
		}
	}
	// The question takes what is left; the branch gives way first.
	const stateCol, branchCol, diffCol, questionCol = 3, 5, 6, 8
	fixed := 1
	for c, w := range colw {
		if c != questionCol {
			fixed += w + 2
		}
	}
	if over := fixed + 10 - cols; over > 0 && colw[branchCol] > 8 {
		cut := min(over, colw[branchCol]-8)
		colw[branchCol] -= cut
		fixed -= cut
	}
	colw[questionCol] = max(cols-fixed-1, 0)

	// Under the border: the header, the agents that fit (scrolled so that
	// the selected one shows), a blank row, the selected one's question.
	details := agentDetails(v)
	gap := min(len(details), 1)
	capacity := rows - 2 - gap - len(details)
	if capacity < 1 {
		details, gap, capacity = nil, 0, rows-2
	}
	first := max(v.Selected-capacity+1, 0)
	attention := tcell.StyleDefault.Foreground(tcolor(st.Attention)).Bold(true)
	drawRow := func(y int, line []string, style tcell.Style, r *AgentRow) {
		x := 1
		for c, cell := range line {
			w := colw[c]
			if w == 0 {
				continue
			}
			switch {
			case r != nil && c == diffCol && r.Diff != nil:
				added := "+" + strconv.Itoa(r.Diff.Added)
				end := putStr(s, x, y, min(x+w, cols), added, style.Foreground(tcell.PaletteColor(2)))
				end = putStr(s, end, y, min(x+w, cols), " ", style)
				putStr(s, end, y, min(x+w, cols), "−"+strconv.Itoa(r.Diff.Deleted), style.Foreground(tcell.PaletteColor(1)))
			case r != nil && c == stateCol && r.NeedsYou:
				putStr(s, x, y, min(x+w, cols), cell, attention.Reverse(style != body))
			default:
				if widths.StringWidth(cell) > w {
					cell = widths.Truncate(cell, w, "…")
				}
				putStr(s, x, y, min(x+w, cols), cell, style)
			}
			x += w + 2
		}
	}
	drawRow(1, table[0], body.Bold(true), nil)
	for i := first; i < len(v.Rows) && i-first < capacity; i++ {
		y, style := 2+i-first, body
		if i == v.Selected {
			style = body.Reverse(true)
			for x := 0; x < cols; x++ {
				putCell(s, x, y, " ", style)
			}
		}
		drawRow(y, table[i+1], style, &v.Rows[i])
	}
	for i, line := range details {
		style := body
		if i == 0 {
			style = body.Bold(true)
		}
		putStr(s, 1, rows-len(details)+i, cols, line, style)
	}
}

// agentTable is the view's table as text: the header, then a line for each
// row, with a column for each of PANE TAB AGENT STATE FOR BRANCH DIFF COST
// QUESTION.
func agentTable(rows []AgentRow) [][]string {
	out := [][]string{{"PANE", "TAB", "AGENT", "STATE", "FOR", "BRANCH", "DIFF", "COST", "QUESTION"}}
	for _, r := range rows {
		pane := strconv.Itoa(r.Pane)
		if r.Focused {
			pane += "*"
		}
		diff, branch, cost := "-", "-", "-"
		if r.Diff != nil {
			diff = "+" + strconv.Itoa(r.Diff.Added) + " −" + strconv.Itoa(r.Diff.Deleted)
		}
		if r.Branch != "" {
			branch = visibleText(r.Branch)
		}
		if r.Cost != "" {
			cost = r.Cost
		}
		out = append(out, []string{pane, strconv.Itoa(r.Tab), visibleText(r.Name), r.State, AgeText(r.For), branch, diff, cost, visibleText(r.Question)})
	}
	return out
}

// agentDetails is what the view shows of the selected agent under the
// table: its question, what it is about and the keys that answer it.
func agentDetails(v *AgentsView) []string {
	if v.Selected < 0 || v.Selected >= len(v.Rows) {
		return nil
	}
	r := v.Rows[v.Selected]
	if r.Question == "" {
		return nil
	}
	lines := []string{"pane " + strconv.Itoa(r.Pane) + " asks: " + visibleText(r.Question)}
	if r.Wants != "" {
		lines = append(lines, "  wants: "+visibleText(r.Wants))
	}
	if len(r.Options) > 0 {
		var opts []string
		for _, o := range r.Options {
			opts = append(opts, "["+visibleText(strings.TrimSuffix(o.Key, "<Enter>"))+"] "+visibleText(o.Label))
		}
		lines = append(lines, "  "+strings.Join(opts, "  "))
	}
	return lines
}

// visibleText puts text from a program on one line of the view: control
// characters, which the terminal would act on, become spaces.
func visibleText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return ' '
		}
		return r
	}, s)
}

// decorateAgents marks the selected row of the agents view the server put
// in sc; with the view closed, there is none to draw.
func (in *Input) decorateAgents(sc *Scene) {
	if in.agents == nil {
		sc.Agents = nil
		return
	}
	if sc.Agents == nil {
		sc.Agents = &AgentsView{} // the server had not seen it open yet
	}
	sc.Agents.Selected = in.agents.selected(sc.Agents)
}
