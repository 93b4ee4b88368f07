package agentstate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Question is what an agent asks a person, as read from its screen.
type Question struct {
	Text    string   // the question itself: "Do you want to proceed?"
	Tool    string   // the tool it wants to use, as the agent names it ("Bash", "Shell", "exec_command"), "" when unknown
	Input   string   // the command or file it wants, "" when unknown (multi-line commands joined with "\n")
	Options []Option // in screen order

	kind     string // the agent's kind, for Describe; "" when unknown
	numbered bool   // the options are numbered on the screen: "1".."n" choose them by place
}

// Option is one answer: Key is what to type to choose it, in melmux's
// send_keys notation ("1", "y", "<Esc>", "y<Enter>" for a line prompt such
// as aider's), Label the option's text without its number/key hint.
type Option struct {
	Key, Label string
}

// How much of a screen a question may take. A question is the live bottom
// of the screen, as the rules' question region says (region.go): its
// choices end at most maxMenu rows above the last row with text (under
// them only hints and borders), and the cursor is among its rows or
// hidden.
const (
	// dialogRows is how far above its first choice a dialog's question,
	// tool and command are looked for: Codex's approval puts the question
	// above its environment, reason and command.
	dialogRows = 24
	// maxChoices is the most choices a menu has.
	maxChoices = 20
	// subjectRows is the most rows of an aider question's subject.
	subjectRows = 8
)

// ParseQuestion reads the question at the live bottom of the screen for an
// agent of kind ("claude", "codex", "gemini", "aider", or "" for any: try
// every parser), nil when the screen asks nothing.
//
// Every layout is tried whatever the kind (the rules of kind "*" apply to
// every agent too). First a numbered menu with one choice marked chosen
// and a question over it: Claude Code's (❯ on the chosen row, the tool in
// the dialog's header, a command between ╌ rules, a file in the question),
// Codex's (› on the chosen row, the command after "$ "), Gemini CLI's
// (boxed, ● on the chosen row, "? Tool  input" on the box's first row, a
// command in a box of its own) or anyone's. A choice's key is its key hint
// ("(y)", "(esc)") where it has one, else its number. Then a one-line
// prompt with the cursor on it: aider's "(Y)es/(N)o/(D)on't ask again
// [Yes]:" (its subject, a file or a command, on the rows over it) or a
// "[y/n]" one. The kind names the agent in Describe; for "" the dialog's
// look names it.
//
// A menu is read only whole: one whose first choice or question is off the
// top of the screen (scrolled away) parses to nil, since its keys cannot
// be told; choices cut off at the bottom are not there to be read, so only
// the ones shown are given. Menus without numbers (moved through with the
// arrow keys) are not read.
func ParseQuestion(kind string, s Screen) *Question {
	q := parseMenu(s)
	if q == nil {
		q = parseLinePrompt(s)
	}
	if q != nil && kind != "" {
		q.kind = kind
	}
	return q
}

// qrow is a screen row with its box borders taken off.
type qrow struct {
	inner string // inside the borders, with its spaces
	text  string // inner without the spaces around it
	depth int    // how many boxes it is in
}

// unbox takes a dialog's box borders (│ at both ends, as many as there
// are) off a row.
func unbox(line string) qrow {
	s, depth := line, 0
	for {
		t := strings.TrimLeft(s, " ")
		r, n := utf8.DecodeRuneInString(t)
		if !isSideBorder(r) {
			break
		}
		s, depth = t[n:], depth+1
	}
	for i := 0; i < depth; i++ {
		t := strings.TrimRight(s, " ")
		r, n := utf8.DecodeLastRuneInString(t)
		if !isSideBorder(r) {
			break
		}
		s = t[:len(t)-n]
	}
	return qrow{inner: s, text: strings.TrimSpace(s), depth: depth}
}

func isSideBorder(r rune) bool { return r == '│' || r == '┃' || r == '║' }

// isRule reports a row drawn of one horizontal line character: Claude
// Code's ─ over its dialogs and the ╌ around its command.
func isRule(text string, line rune) bool {
	n := 0
	for _, r := range text {
		if r != line {
			return false
		}
		n++
	}
	return n >= 8
}

// isBoxEdge reports a box's top or bottom edge: ╭───╮, ╰───╯.
func isBoxEdge(text string) bool {
	r, _ := utf8.DecodeRuneInString(text)
	return strings.ContainsRune("╭╰┌└╔╚", r)
}

// choice is a menu's row read as a choice: "❯ 1. Yes", "› 2. Yes, and
// don't ask again … (p)", "● 1. Allow once".
type choice struct {
	num    int
	label  string
	marker rune // the mark of the chosen row before the number, 0 for none
	numCol int  // the column of the number
}

// parseChoice reads a row as a numbered choice.
func parseChoice(inner string) (choice, bool) {
	var c choice
	s := strings.TrimLeft(inner, " ")
	col := len(inner) - len(s)
	if r, n := utf8.DecodeRuneInString(s); strings.ContainsRune("❯›●>▶▸→", r) {
		t := strings.TrimLeft(s[n:], " ")
		if len(t) == len(s[n:]) {
			return c, false // a marker is followed by a space
		}
		col += cols(s[:len(s)-len(t)])
		c.marker, s = r, t
	}
	c.numCol = col
	i := 0
	for i < len(s) && i < 2 && '0' <= s[i] && s[i] <= '9' {
		c.num = c.num*10 + int(s[i]-'0')
		i++
	}
	if i == 0 || i >= len(s)-2 || s[i] != '.' || s[i+1] != ' ' {
		return c, false
	}
	c.label = strings.TrimSpace(s[i+2:])
	return c, c.label != "" && c.num > 0
}

// indent is how many columns of spaces start s.
func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// parseMenu reads a numbered menu at the live bottom of the screen and the
// dialog over it.
func parseMenu(s Screen) *Question {
	last := s.lastRow()
	if last < 0 {
		return nil
	}
	// The rows a menu and its dialog can take: the last choice at most
	// maxMenu rows above the last row, the first at most maxChoices
	// (with their wrapped lines) above that, the dialog above them.
	top := max(last-maxMenu-2*maxChoices-dialogRows, 0)
	rows := make([]qrow, last+1-top)
	for i := range rows {
		rows[i] = unbox(s.Lines[top+i])
	}
	row := func(i int) *qrow { return &rows[i-top] }

	// The menu: the lowest row that is choice 1 with choice 2 after it and
	// one of them marked chosen (❯, ›, ●) — a numbered list in an
	// agent's answer has no mark.
	first, lastChoice := -1, -1
	var choices []choice
	var marker rune
	for i := last; i >= max(top, last-maxMenu-2*maxChoices) && first < 0; i-- {
		c, ok := parseChoice(row(i).inner)
		if !ok || c.num != 1 {
			continue
		}
		choices, lastChoice = readChoices(rows, top, i, last)
		marked := 0
		for _, c := range choices {
			if c.marker != 0 {
				marker = c.marker
				marked++
			}
		}
		if len(choices) >= 2 && marked == 1 {
			first = i
		}
	}
	if first < 0 || last-lastChoice > maxMenu {
		return nil
	}
	depth := row(first).depth

	// The dialog over it: up to its top edge (a box's, or Claude Code's ─
	// rule) or to the conversation (a prompt or message row).
	start := max(first-dialogRows, top)
	for i := first - 1; i >= start; i-- {
		r := row(i)
		if r.depth < depth && isBoxEdge(r.text) || depth == 0 && r.depth == 0 && (isRule(r.text, '─') || isRule(r.text, '━') || isConversation(r.text)) {
			start = i + 1
			break
		}
	}
	qi := questionRow(rows, top, start, first, depth)
	if qi < 0 {
		return nil
	}
	if !s.CursorHidden && (s.CursorY < qi-1 || s.CursorY > last+1) {
		return nil // the cursor is elsewhere: the dialog is not what takes input
	}

	q := &Question{Text: row(qi).text, numbered: true, Options: make([]Option, len(choices))}
	for i, c := range choices {
		q.Options[i] = optionOf(c)
	}
	switch { // the chosen row's mark tells whose menu it is
	case marker == '❯':
		q.kind = "claude"
	case marker == '›':
		q.kind = "codex"
	case marker == '●' || depth > 0:
		q.kind = "gemini"
	}
	readDialog(q, s, rows, top, start, first, depth)
	return q
}

// readChoices reads the choices from row i (choice 1) down: each the next
// number, each perhaps wrapped onto rows under it indented past its
// number. It returns them and the row of the last one's last line.
func readChoices(rows []qrow, top, i, last int) ([]choice, int) {
	var out []choice
	end := i
	depth := rows[i-top].depth
	for i <= last && len(out) < maxChoices {
		c, ok := parseChoice(rows[i-top].inner)
		if !ok || c.num != len(out)+1 || rows[i-top].depth != depth {
			break
		}
		end = i
		for i++; i <= last; i++ {
			r := rows[i-top]
			if r.depth != depth || r.text == "" || indent(r.inner) <= c.numCol {
				break
			}
			if _, isChoice := parseChoice(r.inner); isChoice {
				break
			}
			c.label += " " + r.text
			end = i
		}
		out = append(out, c)
	}
	return out, end
}

// isConversation reports a row of the conversation above a dialog: a
// prompt the person typed ("› ", "❯ ", " > ") or a message ("• ", "● ").
func isConversation(text string) bool {
	for _, p := range [...]string{"› ", "❯ ", "> ", "• ", "● "} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// questionRow finds the question over a menu, nearest first: a row in the
// agents' words ("Do you want to", "Would you like to", "Allow
// execution of", ...), else any row that ends with "?". -1 for none.
func questionRow(rows []qrow, top, start, first, depth int) int {
	for _, known := range [...]bool{true, false} {
		for i := first - 1; i >= start; i-- {
			r := rows[i-top]
			if r.depth != depth || r.text == "" {
				continue
			}
			if known && askingRE().MatchString(r.text) || !known && strings.HasSuffix(r.text, "?") {
				return i
			}
		}
	}
	return -1
}

var askingRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(do you want to|would you like to|allow (execution|command|edit|this)\b|apply this change|do you trust|do you approve).*\?$`)
})

// optionOf makes a choice an Option: its key is its hint — "(y)", "(esc)"
// at the end of its label — where it has one that is a key, else its
// number; the hint leaves the label.
func optionOf(c choice) Option {
	o := Option{Key: fmt.Sprint(c.num), Label: c.label}
	open := strings.LastIndexByte(c.label, '(')
	if open < 0 || !strings.HasSuffix(c.label, ")") {
		return o
	}
	hint := strings.ToLower(c.label[open+1 : len(c.label)-1])
	switch {
	case len(hint) == 1 && (hint[0] >= 'a' && hint[0] <= 'z' || hint[0] >= '0' && hint[0] <= '9'):
		o.Key = hint
	case hint == "esc":
		o.Key = "<Esc>"
	case hint == "enter" || hint == "tab" || hint == "shift+tab" || strings.HasPrefix(hint, "ctrl+") || strings.HasPrefix(hint, "alt+"):
		// a key that does more than choose (Claude Code's shift+tab also
		// switches modes): the number chooses it
	default:
		return o // not a hint: "Trust folder (proj)"
	}
	if label := strings.TrimSpace(c.label[:open]); label != "" {
		o.Label = label
	} else {
		o.Key = fmt.Sprint(c.num) // all label, no hint
	}
	return o
}

// claudeTools are Claude Code's dialog headers and the tools they name.
var claudeTools = map[string]string{
	"bash command":   "Bash",
	"edit file":      "Edit",
	"create file":    "Write",
	"write file":     "Write",
	"overwrite file": "Write",
	"read file":      "Read",
	"read files":     "Read",
	"edit notebook":  "NotebookEdit",
	"fetch":          "WebFetch",
	"web search":     "WebSearch",
}

// readDialog reads the tool and its input from the dialog over a menu, rows
// start to first (the first choice).
func readDialog(q *Question, s Screen, rows []qrow, top, start, first, depth int) {
	row := func(i int) qrow { return rows[i-top] }
	lower := strings.ToLower(q.Text)
	// Claude Code: a header names the tool ("Bash command"); the command
	// is between two ╌ rules.
	for i := start; i < first; i++ {
		if t := row(i).text; t != "" {
			q.Tool = claudeTools[strings.ToLower(t)]
			break
		}
	}
	if q.Tool == "Bash" {
		var block []int
		open := -1
		for i := start; i < first; i++ {
			if row(i).depth == depth && isRule(row(i).text, '╌') {
				if open >= 0 {
					block = rowsBetween(rows, top, open+1, i)
					break
				}
				open = i
			}
		}
		w, exact := screenWidth(s)
		q.Input = unwrapRows(rows, top, block, w-1, exact) // its text ends a column short of the edge
	}
	// Claude Code's edits name the file in the question.
	if q.Input == "" {
		for _, p := range [...]string{"do you want to make this edit to ", "do you want to create ", "do you want to overwrite ", "do you want to edit "} {
			if strings.HasPrefix(lower, p) {
				q.Input = strings.TrimSuffix(q.Text[len(p):], "?")
				break
			}
		}
	}
	// Codex: the question names the tool, the command follows "$ ".
	switch {
	case q.Tool == "" && strings.HasPrefix(lower, "would you like to run the following command"):
		q.Tool = "exec_command"
	case q.Tool == "" && strings.HasPrefix(lower, "would you like to make the following edits"):
		q.Tool = "apply_patch"
	}
	if q.Input == "" && depth == 0 {
		for i := start; i < first; i++ {
			if strings.HasPrefix(row(i).text, "$ ") {
				j := i
				for j < first && row(j).text != "" {
					if _, isChoice := parseChoice(row(j).inner); isChoice {
						break
					}
					j++
				}
				w, exact := screenWidth(s)
				q.Input = strings.TrimPrefix(unwrapRows(rows, top, rowsBetween(rows, top, i, j), w, exact), "$ ")
				break
			}
		}
	}
	// Gemini CLI: "? Tool  what it does" opens the box; a command to run is
	// in a box of its own.
	if depth > 0 {
		for i := start; i < first; i++ {
			r := row(i)
			if r.depth != depth || !strings.HasPrefix(r.text, "? ") {
				continue
			}
			name, what, _ := strings.Cut(r.text[2:], "  ")
			if q.Tool == "" {
				q.Tool = strings.TrimSpace(name)
			}
			what = strings.TrimSpace(what)
			if strings.HasPrefix(lower, "allow execution") {
				open := -1
				for j := i + 1; j < first; j++ {
					if row(j).depth == depth && isBoxEdge(row(j).text) {
						if open >= 0 {
							box := rowsBetween(rows, top, open+1, j)
							if len(box) > 0 {
								what = unwrapRows(rows, top, box, cols(row(box[0]).inner)-1, true) // the box's width, its padding a column each side
							}
							break
						}
						open = j
					}
				}
			}
			if q.Input == "" {
				q.Input = what
			}
			break
		}
	}
}

// rowsBetween lists the rows from..to-1, without the blank ones at either
// end.
func rowsBetween(rows []qrow, top, from, to int) []int {
	for from < to && rows[from-top].text == "" {
		from++
	}
	for to > from && rows[to-1-top].text == "" {
		to--
	}
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// screenWidth is the screen's width as far as its rows tell: the widest,
// and at least 80 columns. It is exact when a rule drawn across the
// screen is that wide (Claude Code draws them), else a guess.
func screenWidth(s Screen) (width int, exact bool) {
	width = 80
	for _, l := range s.Lines {
		if len(l) < width { // bytes: a bound on columns
			continue
		}
		switch w := cols(l); {
		case w > width:
			width, exact = w, isRule(l, '─') || isRule(l, '━')
		case w == width && !exact:
			exact = isRule(l, '─') || isRule(l, '━')
		}
	}
	return width, exact
}

// unwrapRows gives the lines of a block of rows as they were before the
// agent wrapped them to fit width columns: a row whose first word would
// have fitted on the row above it starts a line of its own (a multi-line
// command); one that would not continues it, after a space — or, where
// the width is exact, straight on when the row above took all of it (a
// word too long for a row, cut). The block's indentation is taken off;
// more than it starts a line. Where the width is a guess (Codex draws
// nothing across the screen), a long first line of a multi-line command
// can read as wrapped.
func unwrapRows(rows []qrow, top int, block []int, width int, exact bool) string {
	if len(block) == 0 {
		return ""
	}
	in := -1
	for _, i := range block {
		if r := rows[i-top]; r.text != "" && (in < 0 || indent(r.inner) < in) {
			in = indent(r.inner)
		}
	}
	var b strings.Builder
	prev := ""
	for k, i := range block {
		line := strings.TrimRight(rows[i-top].inner, " ")
		if len(line) >= in {
			line = line[in:]
		}
		if k > 0 {
			pw := cols(prev)
			word, _, _ := strings.Cut(line, " ")
			switch {
			case line == "" || line[0] == ' ' || prev == "" || pw+1+cols(word) <= width-in:
				b.WriteByte('\n')
			case pw < width-in || !exact:
				b.WriteByte(' ')
			}
		}
		b.WriteString(line)
		prev = line
	}
	return b.String()
}

// widthCond measures text as the terminal does (pane/term): ambiguous
// characters narrow, emoji wide.
var widthCond = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// cols is how many columns s takes.
func cols(s string) int {
	n := 0
	for _, r := range s {
		if r < 0x7f {
			n++
		} else {
			n += widthCond.RuneWidth(r)
		}
	}
	return n
}

// parseLinePrompt reads a one-line question on the cursor's row, near the
// bottom: aider's "Add file to the chat? (Y)es/(N)o/(D)on't ask again
// [Yes]:" (its subject, a file or command, on the rows over it), or a
// "Proceed? [y/N]" one. Its answers are typed and entered.
func parseLinePrompt(s Screen) *Question {
	last, y := s.lastRow(), s.CursorY
	if y < 0 || y > last || y < last-maxMenu {
		return nil
	}
	line := s.Lines[y]
	if m := aiderRE().FindStringSubmatchIndex(line); m != nil {
		q := &Question{kind: "aider", Text: strings.TrimSpace(line[m[2]:m[3]])}
		for _, opt := range strings.Split(line[m[4]:m[5]], "/") {
			opt = strings.TrimSpace(opt)
			q.Options = append(q.Options, Option{Key: strings.ToLower(opt[1:2]) + "<Enter>", Label: opt[1:2] + opt[3:]})
		}
		if q.Text == "" && y > 0 {
			q.Text = strings.TrimSpace(s.Lines[y-1]) // wrapped
		}
		if aiderSubjectRE().MatchString(q.Text) {
			from := y
			for from > max(y-subjectRows, 0) && strings.TrimSpace(s.Lines[from-1]) != "" {
				from--
			}
			q.Input = strings.Join(s.Lines[from:y], "\n")
		}
		return q
	}
	if m := yesNoRE().FindStringSubmatch(line); m != nil {
		return &Question{Text: strings.TrimSpace(m[1]), Options: []Option{{Key: "y<Enter>", Label: "Yes"}, {Key: "n<Enter>", Label: "No"}}}
	}
	return nil
}

var (
	// aiderRE: the question, its answers ("(Y)es/(N)o/(A)ll/(S)kip
	// all/(D)on't ask again") and its default; what is typed follows.
	aiderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.*?)\s*(\([A-Z]\)[^/\[]*(?:/\([A-Z]\)[^/\[]*)+)\[(?:Yes|No)\]:`)
	})
	// aiderSubjectRE: aider's questions that print their subject over
	// them.
	aiderSubjectRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(add (file|url) to the chat|create new file|run shell commands?|allow edits to file that has not been added to the chat)\?$`)
	})
	yesNoRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.*?)\s*[\[(][yY]/[nN][\])]\s*:?\s*$`)
	})
)

// What an option does, from its label.
type optionClass int

const (
	otherOption optionClass = iota
	allowOnce               // "Yes", "Allow once", "Yes, proceed"
	allowAlways             // stops asking: "Yes, and always allow …", "Allow for this session", "Yes, and don't ask again for …"
	denyOnce                // "No", "No, and tell Claude what to do differently"
	denyAlways              // refuses and stops asking: aider's "Don't ask again", "Skip all"
)

// classify tells what an option does from its label's words.
func classify(label string) optionClass {
	l := strings.ToLower(label)
	word := l
	if i := strings.IndexFunc(l, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }); i >= 0 {
		word = l[:i]
	}
	stops := hasWords(l, "all") || strings.Contains(l, "always") || strings.Contains(l, "ask again") ||
		strings.Contains(l, "this session") || strings.Contains(l, "this conversation")
	switch word {
	case "no", "deny", "reject", "refuse", "decline", "cancel", "skip", "don't", "don’t", "do", "never":
		if word == "do" && !strings.HasPrefix(l, "do not") {
			return otherOption
		}
		if stops {
			return denyAlways
		}
		return denyOnce
	case "yes", "allow", "approve", "accept", "proceed", "trust", "ok", "continue", "all":
		switch {
		case stops:
			return allowAlways
		case strings.Contains(l, " mode"):
			return otherOption // "Yes, and switch to auto mode": more than once, other than always
		}
		return allowOnce
	}
	return otherOption
}

// firstOf is the first option of a class.
func (q *Question) firstOf(c optionClass) (Option, bool) {
	for _, o := range q.Options {
		if classify(o.Label) == c {
			return o, true
		}
	}
	return Option{}, false
}

// The words Choose reads as an option's meaning rather than its label's
// text.
var choiceWords = map[string]optionClass{
	"yes": allowOnce, "y": allowOnce, "allow": allowOnce, "approve": allowOnce, "ok": allowOnce, "once": allowOnce,
	"always": allowAlways,
	"no":     denyOnce, "n": denyOnce, "deny": denyOnce, "reject": denyOnce, "refuse": denyOnce,
	"never": denyAlways,
}

// Choose finds the option a CHOICE names: an option's key exactly ("1",
// "y"), else a word of its label (case-insensitive: "yes", "no", "always",
// "allow"), where "yes"/"allow" pick the first plain yes/allow-once option,
// "always" the one that stops asking (don't ask again / always allow / for
// this session), "no"/"deny" the refusing one. An ambiguous or unknown
// choice is an error that lists the options as key=label.
//
// Keys match without case, "esc" names "<Esc>", a line prompt's key
// matches without its "<Enter>" ("y" for "y<Enter>"), and a numbered
// menu's number chooses its option even where a hint gives the key (Codex's
// "1" is "y"). "y" and "n" mean yes and no where they are no key; "never"
// picks the refusal that stops asking (aider's "Don't ask again", which
// answers no). A whole label, or a phrase of one, also names its option.
func (q *Question) Choose(choice string) (Option, error) {
	c := strings.TrimSpace(choice)
	if c == "" {
		return Option{}, q.choiceError("no choice given", nil)
	}
	for _, o := range q.Options {
		if keyMatches(c, o.Key) {
			return o, nil
		}
	}
	if q.numbered {
		if n, ok := smallNumber(c); ok && n >= 1 && n <= len(q.Options) {
			return q.Options[n-1], nil
		}
	}
	lc := strings.ToLower(c)
	for _, o := range q.Options {
		if strings.EqualFold(o.Label, c) {
			return o, nil
		}
	}
	if class, ok := choiceWords[lc]; ok {
		var found []Option
		for _, o := range q.Options {
			if classify(o.Label) == class {
				found = append(found, o)
			}
		}
		switch {
		case len(found) == 0:
			return Option{}, q.choiceError(fmt.Sprintf("no option means %q", c), nil)
		case len(found) > 1 && class == allowAlways:
			return Option{}, q.choiceError(fmt.Sprintf("%q could mean more than one option", c), found)
		}
		return found[0], nil // the first: the plainest yes or no
	}
	var found []Option
	for _, o := range q.Options {
		if hasWords(strings.ToLower(o.Label), lc) {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return Option{}, q.choiceError(fmt.Sprintf("no option is %q", c), nil)
	case 1:
		return found[0], nil
	}
	return Option{}, q.choiceError(fmt.Sprintf("%q could mean more than one option", c), found)
}

// keyMatches reports whether a choice names a key.
func keyMatches(c, key string) bool {
	if strings.EqualFold(c, key) {
		return true
	}
	if k, ok := strings.CutSuffix(key, "<Enter>"); ok && k != "" && strings.EqualFold(c, k) {
		return true
	}
	return key == "<Esc>" && (strings.EqualFold(c, "esc") || strings.EqualFold(c, "escape"))
}

// smallNumber reads a choice of one or two digits.
func smallNumber(s string) (int, bool) {
	if len(s) == 0 || len(s) > 2 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// hasWords reports whether label (lower case) holds phrase as whole words.
func hasWords(label, phrase string) bool {
	for i := 0; ; {
		j := strings.Index(label[i:], phrase)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(phrase)
		before, _ := utf8.DecodeLastRuneInString(label[:j])
		after, _ := utf8.DecodeRuneInString(label[end:])
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		i = j + 1
	}
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’')
}

// choiceError says why a choice names no one option, listing among or
// else every option as key=label.
func (q *Question) choiceError(why string, among []Option) error {
	if among != nil {
		return fmt.Errorf("%s: %s; answer with a key: %s", why, optionList(among), optionList(q.Options))
	}
	if len(q.Options) == 0 {
		return fmt.Errorf("%s: the question has no options", why)
	}
	return fmt.Errorf("%s; the options are %s", why, optionList(q.Options))
}

// optionList lists options as key=label.
func optionList(opts []Option) string {
	var b strings.Builder
	for i, o := range opts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(o.Key + "=" + o.Label)
	}
	return b.String()
}

// KeyFor gives the option for a policy decision: "allow" (allow once),
// "deny" (refuse).
func (q *Question) KeyFor(decision string) (Option, bool) {
	switch strings.ToLower(decision) {
	case "allow":
		return q.firstOf(allowOnce)
	case "deny":
		return q.firstOf(denyOnce)
	}
	return Option{}, false
}

// Equal reports whether two questions are the same question (text, tool,
// input, options).
func (q *Question) Equal(o *Question) bool {
	if q == nil || o == nil {
		return q == o
	}
	return q.Text == o.Text && q.Tool == o.Tool && q.Input == o.Input && slices.Equal(q.Options, o.Options)
}

// Describe is one line a model follows: `claude asks "Do you want to
// proceed?" (Bash: touch x): answer with send_keys: "1" = Yes, "2" = Yes,
// and always allow..., "3" = ..., "4" = No`. A multi-line input shows its
// line breaks as ⏎.
func (q *Question) Describe() string {
	var b strings.Builder
	who := q.kind
	if who == "" {
		who = "the agent"
	}
	fmt.Fprintf(&b, "%s asks %q", who, q.Text)
	input := clip(strings.ReplaceAll(q.Input, "\n", " ⏎ "), 200)
	switch {
	case q.Tool != "" && input != "":
		fmt.Fprintf(&b, " (%s: %s)", q.Tool, input)
	case q.Tool != "" || input != "":
		fmt.Fprintf(&b, " (%s)", q.Tool+input)
	}
	if len(q.Options) == 0 {
		b.WriteString(": no answers read from the screen")
		return b.String()
	}
	b.WriteString(": answer with send_keys: ")
	for i, o := range q.Options {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q = %s", o.Key, o.Label)
	}
	return b.String()
}
