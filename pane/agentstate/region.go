package agentstate

import (
	"fmt"
	"strings"
)

// maxMenu is how many rows a question's choices and hints may take under
// it: anything further down is output that came after the question.
const maxMenu = 10

// Screen is what the rules read: the screen rows as text, the cursor's row
// and the terminal title.
type Screen struct {
	Lines        []string
	CursorY      int
	CursorHidden bool // a hidden cursor says nothing about where input goes
	Title        string
}

// Match is a rule that matched: where, and the row's text.
type Match struct {
	Rule  string
	State State
	Row   int // 0-based; -1 for the title
	Text  string
}

// Evidence says the match in words: `rule claude.permission matched "Do you
// want to proceed?" on row 24`.
func (m Match) Evidence() string {
	where := fmt.Sprintf("on row %d", m.Row+1)
	if m.Row < 0 {
		where = "in the title"
	}
	return fmt.Sprintf("rule %s matched %q %s", m.Rule, clip(strings.TrimSpace(m.Text), 60), where)
}

// clip cuts s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// lastRow is the last row with any text, -1 for a blank screen.
func (s Screen) lastRow() int {
	last := len(s.Lines) - 1
	for last >= 0 && strings.TrimSpace(s.Lines[last]) == "" {
		last--
	}
	return last
}

// match finds the first row of the rule's region the rule matches.
func (ru *rule) match(s Screen) (Match, bool) {
	hit := func(row int, text string) (Match, bool) {
		return Match{Rule: ru.name, State: ru.state, Row: row, Text: text}, true
	}
	last := s.lastRow()
	switch ru.region {
	case "title":
		if s.Title != "" && ru.re.MatchString(s.Title) {
			return hit(-1, s.Title)
		}
	case "question", "prompt_line":
		// A question is waiting only while it is the live bottom of the
		// screen: a menu question with at most maxMenu rows under it and
		// the cursor (unless hidden) in or next to that block; a one-line
		// question with the cursor on its row. Output after it means it was
		// answered.
		below := maxMenu
		if ru.lines > 0 {
			below = ru.lines
		}
		for q := max(last-below, 0); q <= last; q++ {
			near := s.CursorY == q
			if ru.region == "question" {
				near = s.CursorHidden || s.CursorY >= q-1 && s.CursorY <= last+1
			}
			if near && ru.re.MatchString(s.Lines[q]) {
				return hit(q, s.Lines[q])
			}
		}
	case "bottom", "top":
		n := ru.lines
		if n == 0 {
			n = defaultLines
		}
		for _, i := range s.nonEmptyRows(ru.region == "top", n) {
			if ru.re.MatchString(s.Lines[i]) {
				return hit(i, s.Lines[i])
			}
		}
	case "screen":
		for i := 0; i <= last; i++ {
			if ru.re.MatchString(s.Lines[i]) {
				return hit(i, s.Lines[i])
			}
		}
	}
	return Match{}, false
}

// RuleResult is one rule's verdict on a screen.
type RuleResult struct {
	Rule   string
	State  State
	Region string
	Match  *Match // nil when it did not match
}

// Apply runs every rule of a kind on a screen, in order, and returns each
// one's result and the first match of each state.
func (r *Rules) Apply(kindName string, s Screen) (all []RuleResult, first map[State]Match) {
	first = map[State]Match{}
	for _, ru := range r.forKind(kindName) {
		res := RuleResult{Rule: ru.name, State: ru.state, Region: ru.region}
		if m, ok := ru.match(s); ok {
			res.Match = &m
			if _, seen := first[ru.state]; !seen {
				first[ru.state] = m
			}
		}
		all = append(all, res)
	}
	return all, first
}

// nonEmptyRows lists up to n rows with text, from the top or the bottom.
func (s Screen) nonEmptyRows(fromTop bool, n int) []int {
	var out []int
	for k := range s.Lines {
		i := k
		if !fromTop {
			i = len(s.Lines) - 1 - k
		}
		if len(out) == n {
			break
		}
		if strings.TrimSpace(s.Lines[i]) != "" {
			out = append(out, i)
		}
	}
	return out
}
