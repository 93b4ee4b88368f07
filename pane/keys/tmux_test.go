package keys

import (
	"testing"

	"github.com/melmux/melmux/internal/tmuxtest"
)

// tmuxCase pairs a key in our notation with tmux's name for the same key.
type tmuxCase struct{ vim, tmux string }

var tmuxCommon = []tmuxCase{
	{"<Up>", "Up"}, {"<Down>", "Down"}, {"<Left>", "Left"}, {"<Right>", "Right"},
	{"<Home>", "Home"}, {"<End>", "End"}, {"<PgUp>", "PPage"}, {"<PgDn>", "NPage"},
	{"<Del>", "DC"}, {"<Ins>", "IC"}, {"<BS>", "BSpace"}, {"<Enter>", "Enter"},
	{"<Tab>", "Tab"}, {"<Esc>", "Escape"}, {"<Space>", "Space"},
	{"<F1>", "F1"}, {"<F2>", "F2"}, {"<F3>", "F3"}, {"<F4>", "F4"}, {"<F5>", "F5"}, {"<F6>", "F6"},
	{"<F7>", "F7"}, {"<F8>", "F8"}, {"<F9>", "F9"}, {"<F10>", "F10"}, {"<F11>", "F11"}, {"<F12>", "F12"},
	{"<C-a>", "C-a"}, {"<C-z>", "C-z"}, {"<C-A>", "C-A"}, {"<M-a>", "M-a"}, {"<M-A>", "M-A"},
	{"<C-M-a>", "C-M-a"}, {"<S-Tab>", "BTab"}, {"<M-Enter>", "M-Enter"}, {"<M-BS>", "M-BSpace"},
	{"<C-Space>", "C-Space"}, {"<M-Space>", "M-Space"}, {"<C-@>", "C-@"}, {"<C-[>", "C-["}, {"<C-]>", "C-]"},
	{"<C-\\>", "C-\\"}, {"<C-^>", "C-^"}, {"<C-_>", "C-_"}, {"<C-?>", "C-?"}, {"<C-/>", "C-/"}, {"<C-2>", "C-2"},
	{"<C-Up>", "C-Up"}, {"<M-Up>", "M-Up"}, {"<S-Up>", "S-Up"}, {"<C-M-Up>", "C-M-Up"}, {"<C-S-Up>", "C-S-Up"},
	{"<C-Left>", "C-Left"}, {"<M-Right>", "M-Right"}, {"<S-Down>", "S-Down"},
	{"<S-F1>", "S-F1"}, {"<C-F4>", "C-F4"}, {"<C-F5>", "C-F5"}, {"<M-F12>", "M-F12"},
	{"<C-Home>", "C-Home"}, {"<M-End>", "M-End"}, {"<C-Del>", "C-DC"}, {"<C-PgUp>", "C-PPage"},
	{"<S-PgDn>", "S-NPage"}, {"<M-Ins>", "M-IC"}, {"<M-é>", "M-é"}, {"<M-Esc>", "M-Escape"},
	{"<k0>", "KP0"}, {"<k9>", "KP9"}, {"<kPlus>", "KP+"}, {"<kMinus>", "KP-"},
	{"<kMultiply>", "KP*"}, {"<kDivide>", "KP/"}, {"<kPoint>", "KP."},
}

// TestAgainstTmux sends every key in tmuxCommon through tmux send-keys into
// a pane running cat in raw mode and checks Encode gives the same bytes, in
// normal and in application cursor and keypad modes, and that a multi-line
// paste equals tmux's paste-buffer -p.
func TestAgainstTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tmux")
	}
	tmuxtest.Require(t)
	appCases := append([]tmuxCase{{"<kEnter>", "KPEnter"}}, tmuxCommon...)
	for _, c := range []struct {
		name  string
		setup string // printed by the pane before it reads, to set the modes
		m     Modes
		cases []tmuxCase
	}{
		{"normal", "", Modes{}, tmuxCommon},
		{"application", `\033[?1h\033=`, Modes{AppCursor: true, AppKeypad: true}, appCases},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := tmuxtest.NewRecorder(t, c.setup)
			if c.setup != "" {
				tm.WaitFormat("#{keypad_cursor_flag}#{keypad_flag}", "11")
			}
			names := make([]string, len(c.cases))
			for i, k := range c.cases {
				names[i] = k.tmux
			}
			got := tm.Keys(names)
			for i, k := range c.cases {
				if want := string(Encode(k.vim, c.m)); got[i] != want {
					t.Errorf("%s: Encode = %q, tmux %s sent %q", k.vim, want, k.tmux, got[i])
				}
			}
		})
	}
	t.Run("paste", func(t *testing.T) {
		// tmux 3.3a has no format for the paste mode, so the pane sets
		// cursor mode after it and the test waits for that flag: tmux
		// parses the output in order.
		tm := tmuxtest.NewRecorder(t, `\033[?2004h\033[?1h`)
		tm.WaitFormat("#{keypad_cursor_flag}", "1")
		text := "line1\nline2 \t x\nline3"
		if _, err := tm.Run("set-buffer", "--", text); err != nil {
			t.Fatal(err)
		}
		got := tm.Collect([]string{"paste-buffer", "-p", "-t", tm.Target}, 1)[0]
		want := string(Encode(text, Modes{BracketedPaste: true}))
		if got != want {
			t.Errorf("Encode = %q, tmux paste-buffer -p sent %q", want, got)
		}
	})
}
