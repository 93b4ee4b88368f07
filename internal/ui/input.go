package ui

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// maxPaste bounds the text one paste from the client's terminal may carry,
// so a runaway paste cannot grow without end.
const maxPaste = 8 << 20

// Input is one attached client's input state machine: prefix, prompt, help
// overlay, copy mode and mouse drags. It is not safe for concurrent use; the
// server calls it from the one goroutine that serves the client, always with
// the Scene last drawn for that client, so clicks land on what the person saw.
type Input struct {
	keys     *keyTable
	prefix   bool // the prefix key was pressed; the next key is a command
	help     bool
	prompt   *prompt
	msg      string // a note for the status line (bad prompt input)
	copy     *CopyMode
	copyPane int
	pasting  bool   // between tcell paste start and end events
	pasteBuf []rune // the text pasted so far
	mouse    mouseState
	support  PromptSupport // history and completions of the ":" prompt
	tmux     tmuxState     // repeatable keys, pane numbers, choosers (tmuxkeys.go)
	agents   *agentsState  // the agents view, nil while it is closed
}

// NewInput builds the input state for one client with the given prefix key
// (ParseKey notation, "" for DefaultPrefix) and bindings that override the
// default table (key → command line, see uiconf.ParseBinding).
func NewInput(prefix string, bindings map[string]string) (*Input, error) {
	t, err := newKeyTable(prefix, bindings)
	if err != nil {
		return nil, err
	}
	return &Input{keys: t, mouse: mouseState{capture: -1}}, nil
}

// Bindings lists every binding for the help overlay.
func (in *Input) Bindings() []BindingHelp { return in.keys.help() }

// StartCopy enters copy mode on pane with cm (see EnterCopy).
func (in *Input) StartCopy(pane int, cm *CopyMode) {
	in.copy, in.copyPane = cm, pane
	in.prefix = false
}

// StopCopy leaves copy mode, e.g. because its pane went away.
func (in *Input) StopCopy() { in.copy = nil }

// CopyPane returns the pane in copy mode, if any.
func (in *Input) CopyPane() (int, bool) { return in.copyPane, in.copy != nil }

// Decorate adds this client's own state to the scene before Draw: prefix
// indicator, prompt, help overlay, bindings, and the copy-mode view of the
// pane in copy mode (resized to its current content area).
func (in *Input) Decorate(sc *Scene) {
	sc.PrefixActive = in.prefix
	sc.Help = in.help
	if in.help {
		sc.Bindings = in.Bindings()
	}
	if p := in.prompt; p != nil {
		sc.Prompt = p.view()
	}
	if in.msg != "" && sc.Message == "" {
		sc.Message = in.msg
	}
	in.decorateTmux(sc)
	in.decorateAgents(sc)
	if in.copy != nil {
		for i := range sc.Panes {
			if sc.Panes[i].ID == in.copyPane {
				c := sc.Panes[i].Content
				in.copy.resize(c.W, c.H)
				sc.Panes[i].Copy = in.copy.View()
			}
		}
	}
}

// Handle dispatches any tcell event: keys, paste start/end and mouse.
func (in *Input) Handle(ev tcell.Event, sc *Scene) []Action {
	switch ev := ev.(type) {
	case *tcell.EventPaste:
		if ev.Start() {
			in.pasting, in.pasteBuf = true, in.pasteBuf[:0]
			return nil
		}
		if !in.pasting {
			return nil // an end without a start
		}
		in.pasting = false
		text := string(in.pasteBuf)
		in.pasteBuf = in.pasteBuf[:0]
		if text == "" {
			return nil
		}
		return in.Paste(text, sc)
	case *tcell.EventKey:
		if in.pasting {
			if len(in.pasteBuf) < maxPaste {
				in.pasteBuf = appendPasted(in.pasteBuf, Identify(ev))
			} else {
				in.msg = "paste too long: cut at " + strconv.Itoa(maxPaste) + " characters"
			}
			return nil
		}
		return in.Key(ev, sc)
	case *tcell.EventMouse:
		return in.Mouse(ev, sc)
	}
	return nil
}

// appendPasted adds one key of a bracketed paste from the client terminal.
func appendPasted(buf []rune, k KeyID) []rune {
	switch {
	case k.Key == tcell.KeyRune && k.Mod&tcell.ModCtrl == 0:
		return append(buf, k.Rune)
	case k.Key == tcell.KeyRune && k.Rune == 'j':
		return append(buf, '\n')
	case k.Key == tcell.KeyEnter:
		return append(buf, '\r')
	case k.Key == tcell.KeyTab:
		return append(buf, '\t')
	}
	return buf // other control keys have no place in pasted text
}

// focusedID returns the focused pane's id, or -1.
func focusedID(sc *Scene) int {
	if sc == nil {
		return -1
	}
	if p := sc.Focused(); p != nil {
		return p.ID
	}
	return -1
}

// focusedModes returns the focused pane and its modes.
func focusedModes(sc *Scene) (int, term.Modes, bool) {
	if sc == nil {
		return 0, term.Modes{}, false
	}
	p := sc.Focused()
	if p == nil {
		return 0, term.Modes{}, false
	}
	if p.Screen == nil {
		return p.ID, term.Modes{}, true
	}
	return p.ID, p.Screen.Modes, true
}

// Paste handles text pasted into the client's terminal.
func (in *Input) Paste(text string, sc *Scene) []Action {
	if in.prompt != nil {
		for _, r := range text {
			if r >= ' ' {
				in.promptInsert(r)
			}
		}
		return []Action{Redraw{}}
	}
	if (in.copy != nil && focusedID(sc) == in.copyPane) || in.help || in.agents != nil {
		return nil
	}
	id, m, ok := focusedModes(sc)
	if !ok || sc.Focused().Exited {
		return nil
	}
	return []Action{SendBytes{Pane: id, Bytes: PasteBytes(text, m)}}
}

// Key handles one key press.
func (in *Input) Key(ev *tcell.EventKey, sc *Scene) []Action {
	k := Identify(ev)
	in.msg = ""
	if acts, ok := in.tmuxKey(ev, k, sc); ok {
		return acts
	}
	switch {
	case in.help:
		in.help = false
		return []Action{Redraw{}}
	case in.prompt != nil:
		return in.promptKey(k)
	case in.prefix:
		in.prefix = false
		b, ok := in.keys.m[k]
		if !ok || b.Name == "none" {
			return []Action{Redraw{}}
		}
		return append(in.run(b, sc), Redraw{})
	case k == in.keys.prefix:
		in.prefix = true
		return []Action{Redraw{}}
	case in.agents != nil:
		return in.agentsKey(k, sc)
	case in.copy != nil && focusedID(sc) == in.copyPane:
		// Copy mode belongs to its pane: with focus elsewhere, keys go to
		// the focused pane and copy mode waits, as in tmux.
		return in.copyKey(k)
	}
	id, m, ok := focusedModes(sc)
	if !ok || sc.Focused().Exited {
		return nil // an exited pane has no one to read its input
	}
	if b := EncodeKey(k, m); len(b) > 0 {
		return []Action{SendBytes{Pane: id, Bytes: b}}
	}
	return nil
}

// run executes a binding.
func (in *Input) run(b Binding, sc *Scene) []Action {
	id, m, hasPane := focusedModes(sc)
	if acts, ok := in.runTmux(b, sc, id, hasPane); ok {
		return acts
	}
	switch b.Name {
	case "send-prefix":
		if !hasPane {
			return nil
		}
		return []Action{SendBytes{Pane: id, Bytes: EncodeKey(in.keys.prefix, m)}}
	case "command-prompt":
		in.openCommandPrompt()
		return nil
	case "help":
		in.help = true
		return nil
	case "agents":
		in.toggleAgents()
		return nil
	case "next-waiting":
		in.agents = nil // the person goes to the agent, not to the list
	case "copy-mode":
		if !hasPane || (in.copy != nil && in.copyPane == id) {
			return nil
		}
		return []Action{EnterCopy{Pane: id}}
	case "kill-pane":
		if !hasPane {
			return nil
		}
		in.prompt = &prompt{kind: promptConfirm, label: "kill pane " + strconv.Itoa(id) + "? (y/n) ",
			confirm: Command{Name: b.Name, Pane: id}}
		return nil
	case "run":
		return []Action{RunLine{Line: strings.TrimSpace(strings.TrimPrefix(b.Line, "run")), Args: b.Args}}
	}
	return []Action{Command{Name: b.Name, Args: b.Args, Pane: id}}
}

// copyKey handles a key in copy mode (vi keys).
func (in *Input) copyKey(k KeyID) []Action {
	c := in.copy
	leave := func(extra ...Action) []Action {
		in.copy = nil
		return append(append(extra, ExitCopy{Pane: in.copyPane}), Redraw{})
	}
	if k.Key == tcell.KeyRune && k.Mod&tcell.ModCtrl != 0 {
		switch k.Rune {
		case 'u':
			c.HalfPage(-1)
		case 'd':
			c.HalfPage(1)
		case 'b':
			c.Page(-1)
		case 'f':
			c.Page(1)
		case 'y':
			c.Scroll(-1)
		case 'e':
			c.Scroll(1)
		case 'c':
			return leave()
		}
		return []Action{Redraw{}}
	}
	if k.Key == tcell.KeyRune && k.Mod == 0 && c.diff != nil {
		if acts, ok := in.diffKey(k.Rune); ok {
			return acts
		}
	}
	if k.Key == tcell.KeyRune && k.Mod == 0 {
		switch k.Rune {
		case 'h':
			c.Move(-1, 0)
		case 'j':
			c.lineDown(1)
		case 'k':
			c.lineDown(-1)
		case 'l':
			c.Move(1, 0)
		case 'w':
			c.WordForward()
		case 'b':
			c.WordBack()
		case 'e':
			c.WordEnd()
		case '0':
			c.LineStart()
		case '^':
			c.FirstNonBlank()
		case 'H':
			c.ViewLine(0)
		case 'M':
			c.ViewLine(1)
		case 'L':
			c.ViewLine(2)
		case 'o':
			c.SwapEnds()
		case '$':
			c.LineEnd()
		case 'g':
			c.GoTop()
		case 'G':
			c.GoBottom()
		case 'v', ' ':
			c.StartSelection()
		case 'y':
			return in.copySelection()
		case 'q':
			return leave()
		case '/':
			in.prompt = &prompt{kind: promptSearchDown, label: "search down: "}
		case '?':
			in.prompt = &prompt{kind: promptSearchUp, label: "search up: "}
		case 'n', 'N':
			if !c.SearchNext(k.Rune == 'N') && c.Query() != "" {
				in.msg = "not found: " + c.Query()
			}
		}
		return []Action{Redraw{}}
	}
	switch k.Key {
	case tcell.KeyLeft:
		c.Move(-1, 0)
	case tcell.KeyRight:
		c.Move(1, 0)
	case tcell.KeyUp:
		c.lineDown(-1)
	case tcell.KeyDown:
		c.lineDown(1)
	case tcell.KeyPgUp:
		c.Page(-1)
	case tcell.KeyPgDn:
		c.Page(1)
	case tcell.KeyHome:
		c.LineStart()
	case tcell.KeyEnd:
		c.LineEnd()
	case tcell.KeyEnter:
		return in.copySelection()
	case tcell.KeyEsc:
		if c.Selecting() {
			c.StartSelection() // a second call clears it
		} else {
			return leave()
		}
	}
	return []Action{Redraw{}}
}

// copySelection copies the selection (if any) and leaves copy mode.
func (in *Input) copySelection() []Action {
	text := in.copy.Selection()
	in.copy = nil
	var out []Action
	if text != "" {
		out = append(out, Copy{Text: text})
	}
	return append(out, ExitCopy{Pane: in.copyPane}, Redraw{})
}
