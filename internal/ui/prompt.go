package ui

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/internal/uiconf"
)

// promptKind says what a submitted prompt line does.
type promptKind int

const (
	promptCommand    promptKind = iota // ":" — a CLI verb line
	promptConfirm                      // y/n before a destructive command
	promptSearchDown                   // copy mode "/"
	promptSearchUp                     // copy mode "?"
	promptRename                       // "," — a tab's new name
	promptTabNumber                    // "'" — a tab to select by its number
)

type prompt struct {
	kind    promptKind
	label   string
	text    []rune
	cursor  int
	confirm Command // run when a confirm prompt gets "y"
	tab     int     // the tab a rename prompt renames
	// then, when set, makes the actions of the line submitted (or of "y"
	// to a confirm prompt) instead: the diff view's commit and merge.
	then func(line string) []Action

	// Up and Down browse hist, the history as it was when the prompt
	// opened; histAt is the entry shown, len(hist) being the line typed,
	// which draft keeps while older entries are shown.
	hist   []string
	histAt int
	draft  []rune
	comp   *completion // Tab's choices, until another key is pressed
}

// completion is what Tab offers for the word before the cursor.
type completion struct {
	start   int // where the word starts in the line, in runes
	choices []Choice
	at      int // the choice in the line; -1 while the list only shows
}

// Choice is one Tab completion: Text goes in the line, Note is shown beside
// it in the list (a pane's program).
type Choice struct{ Text, Note string }

func (c Choice) label() string {
	if c.Note == "" {
		return c.Text
	}
	return c.Text + ":" + c.Note
}

// PromptSupport is what the ":" prompt recalls and completes from; the
// server gives every client the same.
type PromptSupport struct {
	History *History        // lines run, recalled with Up and Down; nil keeps none
	Verbs   []string        // what the first word completes to
	Panes   func() []Choice // what the word after -t completes to: the session's panes
}

// historyLimit is how many lines the prompt history keeps, as tmux's
// prompt-history-limit.
const historyLimit = 100

// History is the ":" prompt's history. A server keeps one for its life and
// shares it between its clients, so it is safe for concurrent use; the zero
// value is empty and ready.
type History struct {
	mu    sync.Mutex // guards lines
	lines []string   // oldest first
}

// Add appends a line run from the prompt; an empty line or a repeat of the
// last one is not kept twice.
func (h *History) Add(line string) {
	if h == nil || strings.TrimSpace(line) == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.lines); n > 0 && h.lines[n-1] == line {
		return
	}
	h.lines = append(h.lines, line)
	if len(h.lines) > historyLimit {
		h.lines = append(h.lines[:0], h.lines[len(h.lines)-historyLimit:]...)
	}
}

// Lines returns a copy of the history, oldest first.
func (h *History) Lines() []string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lines...)
}

// SetPromptSupport gives the ":" prompt its history and completions.
func (in *Input) SetPromptSupport(ps PromptSupport) { in.support = ps }

// openCommandPrompt opens the ":" prompt with the history as it is now.
func (in *Input) openCommandPrompt() {
	hist := in.support.History.Lines()
	in.prompt = &prompt{kind: promptCommand, label: ":", hist: hist, histAt: len(hist)}
}

func (in *Input) promptInsert(r rune) {
	p := in.prompt
	p.text = append(p.text[:p.cursor], append([]rune{r}, p.text[p.cursor:]...)...)
	p.cursor++
}

// promptKey edits the prompt line: characters insert, Left/Right/Home/End
// (and C-a C-e) move, BSpace/Delete/C-u/C-w erase, Up/Down (C-p C-n) recall
// the history, Tab and BTab complete, Enter submits, Escape or C-c cancels.
func (in *Input) promptKey(k KeyID) []Action {
	p := in.prompt
	if p.kind == promptConfirm {
		in.prompt = nil
		if k.Key == tcell.KeyRune && (k.Rune == 'y' || k.Rune == 'Y') && k.Mod == 0 {
			if p.then != nil {
				return append(p.then("y"), Redraw{})
			}
			return []Action{p.confirm, Redraw{}}
		}
		return []Action{Redraw{}}
	}
	if k.Key != tcell.KeyTab && k.Key != tcell.KeyBacktab {
		p.comp = nil
	}
	ctrl := k.Key == tcell.KeyRune && k.Mod&tcell.ModCtrl != 0
	switch {
	case k.Key == tcell.KeyEsc, ctrl && k.Rune == 'c', ctrl && k.Rune == 'g':
		in.prompt = nil
	case k.Key == tcell.KeyEnter:
		in.prompt = nil
		return append(in.submit(p), Redraw{})
	case k.Key == tcell.KeyTab, k.Key == tcell.KeyBacktab:
		if p.kind == promptCommand {
			in.complete(k.Key == tcell.KeyBacktab)
		}
	case k.Key == tcell.KeyUp, ctrl && k.Rune == 'p':
		p.historyStep(-1)
	case k.Key == tcell.KeyDown, ctrl && k.Rune == 'n':
		p.historyStep(1)
	case k.Key == tcell.KeyBackspace:
		if p.cursor > 0 {
			p.text = append(p.text[:p.cursor-1], p.text[p.cursor:]...)
			p.cursor--
		} else if len(p.text) == 0 {
			in.prompt = nil // backspace on an empty line closes it, as in tmux
		}
	case k.Key == tcell.KeyDelete, ctrl && k.Rune == 'd':
		if p.cursor < len(p.text) {
			p.text = append(p.text[:p.cursor], p.text[p.cursor+1:]...)
		}
	case k.Key == tcell.KeyLeft, ctrl && k.Rune == 'b':
		p.cursor = max(p.cursor-1, 0)
	case k.Key == tcell.KeyRight, ctrl && k.Rune == 'f':
		p.cursor = min(p.cursor+1, len(p.text))
	case k.Key == tcell.KeyHome, ctrl && k.Rune == 'a':
		p.cursor = 0
	case k.Key == tcell.KeyEnd, ctrl && k.Rune == 'e':
		p.cursor = len(p.text)
	case ctrl && k.Rune == 'u':
		p.text, p.cursor = p.text[p.cursor:], 0
	case ctrl && k.Rune == 'w':
		i := p.cursor
		for i > 0 && p.text[i-1] == ' ' {
			i--
		}
		for i > 0 && p.text[i-1] != ' ' {
			i--
		}
		p.text = append(p.text[:i], p.text[p.cursor:]...)
		p.cursor = i
	case k.Key == tcell.KeyRune && k.Mod&(tcell.ModCtrl|tcell.ModAlt) == 0:
		in.promptInsert(k.Rune)
	}
	return []Action{Redraw{}}
}

// historyStep shows the history entry d steps newer (d > 0) or older than
// the one shown; past the newest is the line that was being typed.
func (p *prompt) historyStep(d int) {
	at := p.histAt + d
	if at < 0 || at > len(p.hist) || d == 0 {
		return
	}
	if p.histAt == len(p.hist) {
		p.draft = append(p.draft[:0], p.text...)
	}
	p.histAt = at
	if at == len(p.hist) {
		p.text = append([]rune(nil), p.draft...)
	} else {
		p.text = []rune(p.hist[at])
	}
	p.cursor = len(p.text)
}

// complete acts on Tab (BTab when back): the word before the cursor is
// completed to its one choice, or to what all its choices share, with the
// choices listed above the prompt; once nothing more is shared, each Tab
// puts the next choice (BTab the previous) in the line. The first word
// completes to a verb, the word after -t to a pane.
func (in *Input) complete(back bool) {
	p := in.prompt
	if c := p.comp; c != nil {
		n := len(c.choices)
		switch {
		case back && c.at < 0:
			c.at = n - 1
		case back:
			c.at = (c.at + n - 1) % n
		default:
			c.at = (c.at + 1) % n
		}
		p.replaceWord(c.start, c.choices[c.at].Text)
		return
	}
	start := p.cursor
	for start > 0 && p.text[start-1] != ' ' {
		start--
	}
	word := string(p.text[start:p.cursor])
	var choices []Choice
	for _, c := range in.candidates(string(p.text[:start])) {
		if strings.HasPrefix(c.Text, word) {
			choices = append(choices, c)
		}
	}
	switch len(choices) {
	case 0:
		return
	case 1:
		p.replaceWord(start, choices[0].Text)
		if p.cursor == len(p.text) || p.text[p.cursor] != ' ' {
			in.promptInsert(' ')
		}
		return
	}
	p.comp = &completion{start: start, choices: choices, at: -1}
	if common := sharedPrefix(choices); len(common) > len(word) {
		p.replaceWord(start, common)
	}
}

// candidates lists what the word after the text before completes to.
func (in *Input) candidates(before string) []Choice {
	words := strings.Fields(before)
	switch {
	case len(words) == 0:
		out := make([]Choice, len(in.support.Verbs))
		for i, v := range in.support.Verbs {
			out[i] = Choice{Text: v}
		}
		return out
	case words[len(words)-1] == "-t" && in.support.Panes != nil:
		return in.support.Panes()
	}
	return nil
}

// sharedPrefix is the longest start every choice's text has.
func sharedPrefix(choices []Choice) string {
	common := choices[0].Text
	for _, c := range choices[1:] {
		i := 0
		for i < len(common) && i < len(c.Text) && common[i] == c.Text[i] {
			i++
		}
		common = common[:i]
	}
	// Never end inside a multi-byte rune.
	return strings.ToValidUTF8(common, "")
}

// replaceWord puts text in place of the line from start to the cursor.
func (p *prompt) replaceWord(start int, text string) {
	rest := append([]rune(nil), p.text[p.cursor:]...)
	p.text = append(append(p.text[:start], []rune(text)...), rest...)
	p.cursor = start + len([]rune(text))
}

// view returns what Draw shows of the prompt.
func (p *prompt) view() *PromptView {
	v := &PromptView{Label: p.label, Text: string(p.text), Cursor: p.cursor, Choice: -1}
	if c := p.comp; c != nil {
		for _, ch := range c.choices {
			v.Choices = append(v.Choices, ch.label())
		}
		v.Choice = c.at
	}
	return v
}

// submit acts on a finished prompt line.
func (in *Input) submit(p *prompt) []Action {
	line := string(p.text)
	if p.then != nil {
		return p.then(line)
	}
	switch p.kind {
	case promptSearchDown, promptSearchUp:
		if in.copy == nil {
			return nil
		}
		if line == "" {
			line = in.copy.Query() // an empty search repeats the last one, as in vi
		}
		if line != "" && !in.copy.Search(line, p.kind == promptSearchUp) {
			in.msg = "not found: " + line
		}
		return nil
	case promptRename:
		return []Action{Command{Name: "rename-tab", Args: []string{strconv.Itoa(p.tab), line}, Pane: focusedID(in.tmux.sc)}}
	case promptTabNumber:
		n, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || n < 0 {
			in.msg = fmt.Sprintf("tab: %q is not a tab number (0 or more)", line)
			return nil
		}
		return []Action{Command{Name: "select-tab", Args: []string{strconv.Itoa(n)}, Pane: focusedID(in.tmux.sc)}}
	}
	// Kept even when it does not parse, so it can be recalled and mended.
	in.support.History.Add(line)
	words, err := uiconf.SplitWords(line)
	if err != nil {
		in.msg = "bad command line: " + err.Error()
		return nil
	}
	if len(words) == 0 {
		return nil
	}
	if acts, ok := in.promptBinding(words); ok {
		return acts
	}
	return []Action{RunLine{Line: line, Args: words}}
}
