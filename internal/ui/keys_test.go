package ui

import (
	"errors"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// The expected bytes were checked against tmux 3.3a: send-keys of the key
// name into a pane running `stty raw -echo; cat > file`, read with od -c.
func TestEncodeKey(t *testing.T) {
	app := term.Modes{AppCursor: true}
	kp := term.Modes{AppKeypad: true}
	none := term.Modes{}
	for _, tc := range []struct {
		key  string
		m    term.Modes
		want string
	}{
		{"a", none, "a"}, {"é", none, "é"}, {"Space", none, " "},
		{"Up", none, "\x1b[A"}, {"Down", none, "\x1b[B"}, {"Right", none, "\x1b[C"}, {"Left", none, "\x1b[D"},
		{"Up", app, "\x1bOA"}, {"Left", app, "\x1bOD"},
		{"C-Up", none, "\x1b[1;5A"}, {"C-Up", app, "\x1b[1;5A"}, {"M-Up", none, "\x1b[1;3A"},
		{"S-Up", none, "\x1b[1;2A"}, {"C-S-Up", none, "\x1b[1;6A"}, {"C-M-S-Left", none, "\x1b[1;8D"},
		{"Home", none, "\x1b[1~"}, {"End", none, "\x1b[4~"}, {"C-Home", none, "\x1b[1;5H"}, {"S-End", none, "\x1b[1;2F"},
		{"PgUp", none, "\x1b[5~"}, {"PgDn", none, "\x1b[6~"}, {"C-PgDn", none, "\x1b[6;5~"},
		{"Insert", none, "\x1b[2~"}, {"Delete", none, "\x1b[3~"}, {"C-Delete", none, "\x1b[3;5~"},
		{"F1", none, "\x1bOP"}, {"F4", none, "\x1bOS"}, {"S-F1", none, "\x1b[1;2P"}, {"C-F2", none, "\x1b[1;5Q"},
		{"F5", none, "\x1b[15~"}, {"F6", none, "\x1b[17~"}, {"F11", none, "\x1b[23~"}, {"F12", none, "\x1b[24~"},
		{"S-F5", none, "\x1b[15;2~"}, {"C-F12", none, "\x1b[24;5~"}, {"M-F5", none, "\x1b[15;3~"},
		{"F13", none, "\x1b[1;2P"}, {"F17", none, "\x1b[15;2~"},
		{"M-a", none, "\x1ba"}, {"C-a", none, "\x01"}, {"C-z", none, "\x1a"}, {"C-M-a", none, "\x1b\x01"},
		{"C-A", none, "\x01"}, {"M-A", none, "\x1bA"},
		{"BSpace", none, "\x7f"}, {"M-BSpace", none, "\x1b\x7f"}, {"C-BSpace", none, "\x08"},
		{"Enter", none, "\r"}, {"M-Enter", none, "\x1b\r"}, {"Tab", none, "\t"}, {"BTab", none, "\x1b[Z"},
		{"S-Tab", none, "\x1b[Z"}, {"Escape", none, "\x1b"},
		{"C-Space", none, "\x00"}, {"C-@", none, "\x00"}, {`C-\`, none, "\x1c"}, {"C-]", none, "\x1d"},
		{"C-^", none, "\x1e"}, {"C-_", none, "\x1f"}, {"C-?", none, "\x7f"}, {"C-[", none, "\x1b"},
		{"C-1", none, "1"},
	} {
		k, err := ParseKey(tc.key)
		if err != nil {
			t.Fatalf("ParseKey(%q): %v", tc.key, err)
		}
		if got := string(EncodeKey(k, tc.m)); got != tc.want {
			t.Errorf("%s (modes %+v): got %q, want %q", tc.key, tc.m, got, tc.want)
		}
	}
	// Keypad keys tcell can tell apart.
	for _, tc := range []struct {
		k    tcell.Key
		m    term.Modes
		want string
	}{
		{tcell.KeyUpLeft, kp, "\x1bOw"}, {tcell.KeyUpLeft, none, "\x1b[1~"}, {tcell.KeyCenter, kp, "\x1bOu"},
		{tcell.KeyCenter, none, "\x1b[E"}, {tcell.KeyDownRight, none, "\x1b[6~"}, {tcell.KeyDownLeft, kp, "\x1bOq"},
		{tcell.KeyHelp, none, ""}, {tcell.KeyF60, none, ""}, {tcell.KeyF25, none, "\x1b[1;5P"}, {tcell.KeyF40, none, "\x1b[1;6S"},
	} {
		if got := string(EncodeKey(KeyID{Key: tc.k}, tc.m)); got != tc.want {
			t.Errorf("key %v (modes %+v): got %q, want %q", tc.k, tc.m, got, tc.want)
		}
	}
}

// Identify must give one KeyID for the several ways tcell reports a key.
func TestIdentify(t *testing.T) {
	ctrlB := KeyID{tcell.KeyRune, 'b', tcell.ModCtrl}
	for _, tc := range []struct {
		name string
		ev   *tcell.EventKey
		want KeyID
	}{
		{"KeyCtrlB", tcell.NewEventKey(tcell.KeyCtrlB, 0, tcell.ModCtrl), ctrlB},
		{"control code", tcell.NewEventKey(tcell.KeyRune, 2, tcell.ModNone), ctrlB},
		{"rune+ctrl", tcell.NewEventKey(tcell.KeyRune, 'b', tcell.ModCtrl), ctrlB},
		{"ASCII key", tcell.NewEventKey(tcell.KeySTX, 'b', tcell.ModCtrl), ctrlB},
		{"shifted rune", tcell.NewEventKey(tcell.KeyRune, '%', tcell.ModShift), KeyID{tcell.KeyRune, '%', 0}},
		{"DEL", tcell.NewEventKey(tcell.KeyDEL, 0, 0), KeyID{Key: tcell.KeyBackspace}},
		{"backspace", tcell.NewEventKey(tcell.KeyBackspace, 0, 0), KeyID{Key: tcell.KeyBackspace}},
		{"ctrl-space", tcell.NewEventKey(tcell.KeyCtrlSpace, 0, tcell.ModCtrl), KeyID{tcell.KeyRune, ' ', tcell.ModCtrl}},
		{"ctrl-backslash", tcell.NewEventKey(tcell.KeyCtrlBackslash, 0, tcell.ModCtrl), KeyID{tcell.KeyRune, '\\', tcell.ModCtrl}},
		{"esc", tcell.NewEventKey(tcell.KeyEsc, 0, 0), KeyID{Key: tcell.KeyEsc}},
		{"enter", tcell.NewEventKey(tcell.KeyEnter, 0, 0), KeyID{Key: tcell.KeyEnter}},
		{"alt-x", tcell.NewEventKey(tcell.KeyRune, 'x', tcell.ModAlt), KeyID{tcell.KeyRune, 'x', tcell.ModAlt}},
		{"ctrl-up", tcell.NewEventKey(tcell.KeyUp, 0, tcell.ModCtrl), KeyID{Key: tcell.KeyUp, Mod: tcell.ModCtrl}},
	} {
		if got := Identify(tc.ev); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestParseKey(t *testing.T) {
	for _, s := range []string{"C-b", "%", `"`, "M-x", "S-Up", "C-M-a", "F12", "Space", "BSpace", "Escape", "PgUp", "日"} {
		k, err := ParseKey(s)
		if err != nil {
			t.Errorf("ParseKey(%q): %v", s, err)
			continue
		}
		if got := k.String(); got != s {
			t.Errorf("ParseKey(%q).String() = %q", s, got)
		}
	}
	same := [][2]string{{"C-B", "C-b"}, {"<C-b>", "C-b"}, {"c-b", "C-b"}, {"up", "Up"}, {"PageUp", "PgUp"},
		{"esc", "Escape"}, {"S-%", "%"}, {"BTab", "BTab"}, {"DC", "Delete"}, {"S-a", "A"}, {"M-S-x", "M-X"}}
	for _, p := range same {
		a, err1 := ParseKey(p[0])
		b, err2 := ParseKey(p[1])
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("ParseKey(%q) = %v,%v; ParseKey(%q) = %v,%v; want equal", p[0], a, err1, p[1], b, err2)
		}
	}
	for _, s := range []string{"", "C-", "X-a", "Hyper-a", "F99", "F0", "nosuchkey", "\x01", "ab"} {
		if _, err := ParseKey(s); !errors.Is(err, ErrBadKey) {
			t.Errorf("ParseKey(%q): error %v, want ErrBadKey", s, err)
		}
	}
}

func TestOSC52(t *testing.T) {
	if got, want := string(OSC52("hello")), "\x1b]52;c;aGVsbG8=\a"; got != want {
		t.Errorf("OSC52 = %q, want %q", got, want)
	}
	if got, want := string(OSC52("")), "\x1b]52;c;\a"; got != want {
		t.Errorf("OSC52 empty = %q, want %q", got, want)
	}
}
