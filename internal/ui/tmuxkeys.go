package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
)

// The keys tmux users reach for first, and what they need beside the
// binding table: repeatable keys, the pane numbers (q), the tab and session
// choosers (w, s), and the prompts that rename a tab (,) and select a tab
// by number (').

// RepeatTime is how long after a repeatable key (the resize keys) the next
// repeatable key runs without the prefix, as tmux's repeat-time.
const RepeatTime = 500 * time.Millisecond

// DisplayPanesTime is how long the pane numbers (C-b q) stay up. tmux's
// display-panes-time is 1 s; melmux's pane ids may take two digits to type.
const DisplayPanesTime = 2 * time.Second

// tmuxState is the Input's state for these keys.
type tmuxState struct {
	// repeatUntil is when the keys of repeatable bindings stop running
	// without the prefix; zero when no repeatable key ran last.
	repeatUntil time.Time
	panes       *panesShown
	chooser     *chooser
	// sc and event are the scene and the key being handled, for a prompt
	// line that runs a binding (it is submitted from the key that ends it)
	// and for the pane numbers' time.
	sc    *Scene
	event *tcell.EventKey
	// when is a key's time: when the terminal's input was read, not when
	// the key is handled, so a key typed within the window counts however
	// long the server took. Tests set their own.
	when func(*tcell.EventKey) time.Time
}

// panesShown is the pane numbers shown over the panes: until when, the
// panes' ids and the digits typed so far.
type panesShown struct {
	until time.Time
	ids   []int
	typed string
}

// ChooserItem is one line of a chooser: what it shows and what choosing it does.
type ChooserItem struct {
	Label string
	Do    Action
}

// ChooserView is the chooser drawn over the panes (C-b w, C-b s).
type ChooserView struct {
	Title    string
	Items    []string
	Selected int
}

type chooser struct {
	title string
	items []ChooserItem
	at    int
}

func (in *Input) keyTime(ev *tcell.EventKey) time.Time {
	if in.tmux.when != nil {
		return in.tmux.when(ev)
	}
	return ev.When()
}

// ShowChooser opens a chooser over the panes with items, at selected: the
// arrows (j k, C-p C-n) move, Enter or an item's number (0-9) chooses, q or
// Escape closes. An empty list says so in the status line instead.
func (in *Input) ShowChooser(title string, items []ChooserItem, selected int) {
	if len(items) == 0 {
		in.msg = title + ": nothing to choose"
		return
	}
	in.tmux.chooser = &chooser{title: title, items: items, at: min(max(selected, 0), len(items)-1)}
	in.help, in.prompt = false, nil
}

// Wakeup is how long until this client's overlays change by themselves
// (the pane numbers go away); 0 for never.
func (in *Input) Wakeup() time.Duration {
	if p := in.tmux.panes; p != nil {
		if d := time.Until(p.until); d > 0 {
			return d
		}
	}
	return 0
}

// decorateTmux puts the pane numbers and the chooser in the scene.
func (in *Input) decorateTmux(sc *Scene) {
	if p := in.tmux.panes; p != nil && time.Now().Before(p.until) {
		sc.PaneNumbers = true
	}
	if c := in.tmux.chooser; c != nil {
		v := &ChooserView{Title: c.title, Selected: c.at}
		for _, it := range c.items {
			v.Items = append(v.Items, it.Label)
		}
		sc.Chooser = v
	}
}

// tmuxKey handles a key for the pane numbers, the chooser and repeatable
// bindings; ok is false when the key is not theirs.
func (in *Input) tmuxKey(ev *tcell.EventKey, k KeyID, sc *Scene) (acts []Action, ok bool) {
	in.tmux.sc, in.tmux.event = sc, ev
	if in.help || in.prompt != nil {
		return nil, false
	}
	if in.tmux.chooser != nil {
		return in.chooserKey(k), true
	}
	at := in.keyTime(ev)
	if p := in.tmux.panes; p != nil {
		if at.Before(p.until) {
			return in.panesKey(k, sc), true
		}
		in.tmux.panes = nil
	}
	if in.prefix {
		if b, found := in.keys.m[k]; found && b.Repeat {
			in.prefix = false
			in.tmux.repeatUntil = at.Add(RepeatTime)
			return append(in.run(b, sc), Redraw{}), true
		}
		return nil, false
	}
	if !in.tmux.repeatUntil.IsZero() {
		b, found := in.keys.m[k]
		if found && b.Repeat && at.Before(in.tmux.repeatUntil) && k != in.keys.prefix {
			in.tmux.repeatUntil = at.Add(RepeatTime)
			return append(in.run(b, sc), Redraw{}), true
		}
		in.tmux.repeatUntil = time.Time{}
	}
	return nil, false
}

// runTmux runs the bindings of this file; ok is false for the others.
func (in *Input) runTmux(b Binding, sc *Scene, id int, hasPane bool) (acts []Action, ok bool) {
	switch b.Name {
	case "copy-mode":
		if len(b.Args) == 0 || !hasPane {
			return nil, false
		}
		// -u: a page up, as PgUp after the prefix does in tmux; in copy
		// mode already, one more page.
		if in.copy != nil && in.copyPane == id {
			in.copy.Page(-1)
			return nil, true
		}
		return []Action{EnterCopy{Pane: id, PageUp: true}}, true
	case "display-panes":
		if sc == nil || len(sc.Panes) == 0 {
			return nil, true
		}
		p := &panesShown{until: time.Now().Add(DisplayPanesTime)}
		if ev := in.tmux.event; ev != nil {
			p.until = in.keyTime(ev).Add(DisplayPanesTime)
		}
		for _, pv := range sc.Panes {
			p.ids = append(p.ids, pv.ID)
		}
		in.tmux.panes = p
		return nil, true
	case "choose-tab":
		if sc == nil {
			return nil, true
		}
		var items []ChooserItem
		at := 0
		for _, t := range sc.Tabs {
			label := fmt.Sprintf("%d: %s (%d %s)", t.Index, t.Name, t.Panes, plural(t.Panes, "pane", "panes"))
			if t.Active {
				label += " *"
				at = len(items)
			}
			items = append(items, ChooserItem{Label: label, Do: SelectTab{Index: t.Index}})
		}
		in.ShowChooser("tabs", items, at)
		return nil, true
	case "rename-tab":
		t := activeTab(sc)
		if t == nil {
			return nil, true
		}
		if len(b.Args) > 0 {
			return []Action{Command{Name: b.Name, Args: []string{strconv.Itoa(t.Index), b.Args[0]}, Pane: id}}, true
		}
		in.prompt = &prompt{kind: promptRename, label: "rename tab " + strconv.Itoa(t.Index) + ": ",
			text: []rune(t.Name), cursor: len([]rune(t.Name)), tab: t.Index}
		return nil, true
	case "kill-tab":
		t := activeTab(sc)
		if t == nil {
			return nil, true
		}
		in.prompt = &prompt{kind: promptConfirm,
			label:   fmt.Sprintf("kill tab %d (%d %s)? (y/n) ", t.Index, t.Panes, plural(t.Panes, "pane", "panes")),
			confirm: Command{Name: b.Name, Args: []string{strconv.Itoa(t.Index)}, Pane: id}}
		return nil, true
	case "select-tab-prompt":
		in.prompt = &prompt{kind: promptTabNumber, label: "tab: "}
		return nil, true
	}
	return nil, false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func activeTab(sc *Scene) *TabView {
	if sc == nil {
		return nil
	}
	for i := range sc.Tabs {
		if sc.Tabs[i].Active {
			return &sc.Tabs[i]
		}
	}
	return nil
}

// panesKey handles a key while the pane numbers show: digits name a pane,
// which is focused as soon as no other pane's id goes on from them (Enter
// takes the digits typed as they are); any other key closes the numbers.
func (in *Input) panesKey(k KeyID, sc *Scene) []Action {
	p := in.tmux.panes
	if k.Key == tcell.KeyEnter && p.typed != "" {
		in.tmux.panes = nil
		return in.jumpTo(p.typed, p.ids)
	}
	if k.Key != tcell.KeyRune || k.Mod != 0 || k.Rune < '0' || k.Rune > '9' {
		in.tmux.panes = nil
		return []Action{Redraw{}}
	}
	p.typed += string(k.Rune)
	exact, longer := false, false
	for _, id := range p.ids {
		s := strconv.Itoa(id)
		switch {
		case s == p.typed:
			exact = true
		case strings.HasPrefix(s, p.typed):
			longer = true
		}
	}
	switch {
	case exact && !longer, !exact && !longer:
		in.tmux.panes = nil
		return in.jumpTo(p.typed, p.ids)
	}
	return []Action{Redraw{}} // another digit may follow
}

func (in *Input) jumpTo(typed string, ids []int) []Action {
	for _, id := range ids {
		if strconv.Itoa(id) == typed {
			return []Action{FocusPane{Pane: id}, Redraw{}}
		}
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.Itoa(id)
	}
	in.msg = "no pane " + typed + " here (panes shown: " + strings.Join(list, ", ") + ")"
	return []Action{Redraw{}}
}

// chooserKey moves in the chooser, chooses or closes it.
func (in *Input) chooserKey(k KeyID) []Action {
	c := in.tmux.chooser
	ctrl := k.Key == tcell.KeyRune && k.Mod&tcell.ModCtrl != 0
	plain := k.Key == tcell.KeyRune && k.Mod == 0
	pick := func(i int) []Action {
		in.tmux.chooser = nil
		return []Action{c.items[i].Do, Redraw{}}
	}
	switch {
	case k.Key == tcell.KeyUp, plain && k.Rune == 'k', ctrl && k.Rune == 'p':
		c.at = max(c.at-1, 0)
	case k.Key == tcell.KeyDown, plain && k.Rune == 'j', ctrl && k.Rune == 'n':
		c.at = min(c.at+1, len(c.items)-1)
	case k.Key == tcell.KeyHome, plain && k.Rune == 'g':
		c.at = 0
	case k.Key == tcell.KeyEnd, plain && k.Rune == 'G':
		c.at = len(c.items) - 1
	case k.Key == tcell.KeyEnter:
		return pick(c.at)
	case plain && k.Rune >= '0' && k.Rune <= '9':
		if i := int(k.Rune - '0'); i < len(c.items) {
			return pick(i)
		}
		in.msg = fmt.Sprintf("%s: no item %c (0-%d)", c.title, k.Rune, len(c.items)-1)
	case k.Key == tcell.KeyEsc, plain && k.Rune == 'q', ctrl && (k.Rune == 'c' || k.Rune == 'g'):
		in.tmux.chooser = nil
	}
	return []Action{Redraw{}}
}
