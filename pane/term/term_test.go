package term

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func newTerm(cols, rows int, in string) (*Terminal, *[]string) {
	var replies []string
	tm := New(cols, rows, Options{Reply: func(b []byte) { replies = append(replies, string(b)) }})
	tm.Write([]byte(in))
	return tm, &replies
}

func screenText(tm *Terminal) string {
	return strings.Join(tm.Lines(), "\n")
}

// TestLines is the main table: byte streams and the screen they leave.
func TestLines(t *testing.T) {
	tests := []struct {
		name, in string
		cols     int
		want     []string // first rows of the screen
	}{
		{"plain", "hello\r\nworld", 10, []string{"hello", "world"}},
		{"empty params fill defaults", "\x1b[3;3Hx\x1b[;5Hy", 10, []string{"    y", "", "  x"}},
		{"CUP empty column", "\x1b[2;Hz", 10, []string{"", "z"}},
		{"tab stops", "a\tb\tc", 20, []string{"a       b       c"}},
		{"no tab past the end", "123456789\tX", 10, []string{"123456789X"}},
		{"BS from a pending wrap lands on the last column", "abcdefghij\bX", 10, []string{"abcdefghiX"}},
		{"BS at start of a wrapped line goes up", "abcdefghijk\r\b\bX", 10, []string{"abcdefghXj", "k"}},
		{"CR progress", "10%\r20%\r30%", 10, []string{"30%"}},
		{"EL variants", "abcdef\x1b[3G\x1b[K\r\nabcdef\x1b[3G\x1b[1K\r\nabcdef\x1b[2K", 10, []string{"ab", "   def", ""}},
		{"ED1 on row 1 clears row 0", "aaa\r\nbbb\x1b[2;2H\x1b[1J", 10, []string{"", "  b"}},
		{"ECH", "abcdef\x1b[2G\x1b[3X", 10, []string{"a   ef"}},
		{"ICH and DCH", "abcdef\x1b[2G\x1b[2@\x1b[5G\x1b[1P", 10, []string{"a  bdef"}},
		{"IL and DL", "1\r\n2\r\n3\x1b[2;1H\x1b[L", 10, []string{"1", "", "2", "3"}},
		{"insert mode", "abc\x1b[1G\x1b[4hXY\x1b[4lZ", 10, []string{"XYZc"[:3] + "bc"}},
		{"REP", "ab\x1b[3b", 10, []string{"abbbb"}},
		{"REP clamps at the line end", "abcdefgh\x1b[50bZ", 10, []string{"abcdefghhh", "Z"}},
		{"REP needs a preceding character", "\x1b[3bx", 10, []string{"x"}},
		{"wide character", "日本", 10, []string{"日本"}},
		{"wide at last column wraps", "123456789日", 10, []string{"123456789", "日"}},
		{"combining mark joins", "e\u0301!", 10, []string{"e\u0301!"}},
		{"combining at pending wrap", "abcdefghij\u0301", 10, []string{"abcdefghij\u0301"}},
		{"combining at column 0 dropped", "\u0301a", 10, []string{"a"}},
		{"combining after wide", "日\u0301x", 10, []string{"日\u0301x"}},
		{"overwrite half of wide", "日\x1b[2Gx", 10, []string{" x"}},
		{"split wide first half", "日\x1b[1Gx", 10, []string{"x"}},
		{"CHT ignored as tmux", "1\x1b[3IA", 20, []string{"1A"}},
		{"negative count ignored", "12345\x1b[-1@B", 10, []string{"12345B"}},
		{"DCH negative ignored", "\x1b[5G\x1b[-1PC", 10, []string{"    C"}},
		{"overflowing parameter drops the sequence", "1234\x1b[999999999999IY", 10, []string{"1234Y"}},
		{"huge counts clamp", "ab\x1b[2147483647@c\x1b[2147483647P", 10, []string{"abc"}},
		{"huge CUP clamps", "\x1b[99999;99999Hx", 5, []string{"", "", "", "", "    x"}},
		{"prefixed CSI dropped", "a\x1b[>4;2mb\x1b[=1;1uc\x1b[<ud", 10, []string{"abcd"}},
		{"kitty query does not restore cursor", "\x1b[s\x1b[1;5Hx\x1b[?uy", 10, []string{"    xy"}},
		{"ANSI save and restore", "ab\x1b[s\x1b[2;1Hx\x1b[uc", 10, []string{"abc", "x"}},
		{"1049l outside alt ignored", "main\x1b[?1049lX", 10, []string{"mainX"}},
		{"alt screen round trip", "main\x1b[?1049halt\x1b[?1049l!", 10, []string{"main!"}},
		{"RIS clears and homes", "abc\r\ndef\x1bcX", 10, []string{"X", ""}},
		{"DCS and APC swallowed", "a\x1bPq#1;2;3\x1b\\b\x1b_apc\x1b\\c", 10, []string{"abc"}},
		{"CAN aborts a sequence", "a\x1b[12\x18b", 10, []string{"ab"}},
		{"C0 inside CSI is executed", "ab\x1b[\r1Cx", 10, []string{"ax"}},
		{"invalid UTF-8 dropped, as tmux", "a\xffb\xe6\x97c\xed\xa0\x80d\uFFFD", 10, []string{"abcd\uFFFD"}},
		{"C1 as UTF-8 ignored", "a\u0085b", 10, []string{"ab"}},
		{"DECALN", "\x1b#8", 3, []string{"EEE", "EEE"}},
		{"line drawing", "\x1b(0qx\x1b(Bq", 10, []string{"─│q"}},
		{"no autowrap", "\x1b[?7labcdefghijkl\x1b[?7h", 10, []string{"abcdefghil"}},
		{"scroll region RI", "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[2;1H\x1bMx", 10, []string{"1", "x", "2", "4"}},
		{"origin mode CUP", "\x1b[2;3r\x1b[?6h\x1b[1;1Hx\x1b[?6l", 10, []string{"", "x"}},
		{"inverted region ignored", "\x1b[3;2r\x1b[3;1Hx", 10, []string{"", "", "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm, _ := newTerm(tc.cols, 5, tc.in)
			got := tm.Lines()
			if len(got) != 5 {
				t.Fatalf("Lines() has %d rows, want 5", len(got))
			}
			for i, w := range tc.want {
				if got[i] != w {
					t.Errorf("row %d = %q, want %q (screen:\n%s)", i, got[i], w, screenText(tm))
				}
			}
		})
	}
}

// TestSplitWrites feeds the same stream in every two-piece split and checks
// the result never depends on where reads end.
func TestSplitWrites(t *testing.T) {
	in := "a\u00e9\u65e5\U0001F600\x1b[1;31mred\x1b[0m\x1b]0;t;i;t\x07\x1b[2;3Hx\u0301\x1b[38:2::1:2:3mz"
	ref, _ := newTerm(20, 4, in)
	want := screenText(ref)
	wantSnap := ref.Snapshot()
	for i := 1; i < len(in); i++ {
		tm := New(20, 4, Options{})
		for _, part := range []string{in[:i], in[i:]} {
			if n, err := tm.Write([]byte(part)); n != len(part) || err != nil {
				t.Fatalf("split %d: Write = %d, %v; want %d, nil", i, n, err, len(part))
			}
		}
		if got := screenText(tm); got != want {
			t.Errorf("split at %d: screen %q, want %q", i, got, want)
		}
		if tm.Title() != "t;i;t" {
			t.Errorf("split at %d: title %q", i, tm.Title())
		}
		snap := tm.Snapshot()
		if snap.Cells[1][3] != wantSnap.Cells[1][3] {
			t.Errorf("split at %d: cell %+v, want %+v", i, snap.Cells[1][3], wantSnap.Cells[1][3])
		}
	}
	// One byte at a time.
	tm := New(20, 4, Options{})
	for i := 0; i < len(in); i++ {
		tm.Write([]byte{in[i]})
	}
	if got := screenText(tm); got != want {
		t.Errorf("byte by byte: screen %q, want %q", got, want)
	}
}

func TestSGR(t *testing.T) {
	tests := []struct {
		name, in string
		fg, bg   Color
		attr     Attr
	}{
		{"16 colours", "\x1b[31;42mx", Indexed(1), Indexed(2), 0},
		{"bright", "\x1b[95;104mx", Indexed(13), Indexed(12), 0},
		{"256 semicolon", "\x1b[38;5;196;48;5;17mx", Indexed(196), Indexed(17), 0},
		{"256 colon", "\x1b[38:5:196mx", Indexed(196), ColorDefault, 0},
		{"truecolour semicolon", "\x1b[38;2;10;20;30mx", RGB(10, 20, 30), ColorDefault, 0},
		{"truecolour colon with colour space", "\x1b[38:2::10:200:30mx", RGB(10, 200, 30), ColorDefault, 0},
		{"truecolour colon without colour space", "\x1b[48:2:1:2:3mx", ColorDefault, RGB(1, 2, 3), 0},
		{"rgb with zero red and green stays truecolour", "\x1b[38;2;0;0;200mx", RGB(0, 1, 200), ColorDefault, 0},
		{"underline styles", "\x1b[4:3mx", ColorDefault, ColorDefault, AttrUnderline},
		{"underline off by style 0", "\x1b[4m\x1b[4:0mx", ColorDefault, ColorDefault, 0},
		{"empty parameter is a reset", "\x1b[1;;4mx", ColorDefault, ColorDefault, AttrUnderline},
		{"attributes", "\x1b[1;3;5mx", ColorDefault, ColorDefault, AttrBold | AttrItalic | AttrBlink},
		{"reverse keeps pen colours", "\x1b[31;7mx", Indexed(1), ColorDefault, AttrReverse},
		{"dim and strike dropped, rest kept", "\x1b[2;9;3mx", ColorDefault, ColorDefault, AttrItalic},
		{"underline colour dropped with its arguments", "\x1b[58:2::255:0:0;4mx", ColorDefault, ColorDefault, AttrUnderline},
		{"underline colour semicolon form", "\x1b[58;5;9;3mx", ColorDefault, ColorDefault, AttrItalic},
		{"bad colour ignored", "\x1b[38;5;300;1mx", ColorDefault, ColorDefault, AttrBold},
		{"reset", "\x1b[1;31m\x1b[mx", ColorDefault, ColorDefault, 0},
		{"private SGR ignored", "\x1b[31m\x1b[>4;2mx", Indexed(1), ColorDefault, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm, _ := newTerm(10, 2, tc.in)
			c := tm.Snapshot().Cells[0][0]
			if c.Rune != 'x' || c.FG != tc.fg || c.BG != tc.bg || c.Attr != tc.attr {
				t.Errorf("cell = %+v, want rune x fg %#x bg %#x attr %b", c, tc.fg, tc.bg, tc.attr)
			}
		})
	}
}

func TestReplies(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"DA1", "\x1b[c", []string{replyDA1}},
		{"DA1 with 0", "\x1b[0c", []string{replyDA1}},
		{"DA2", "\x1b[>c", []string{replyDA2}},
		{"DECID", "\x1bZ", []string{replyDA1}},
		{"DSR", "\x1b[5n", []string{replyDSR}},
		{"CPR after preceding bytes", "abc\r\nde\x1b[6n", []string{"\x1b[2;3R"}},
		{"CPR at a pending wrap", "0123456789\x1b[6n", []string{"\x1b[1;10R"}},
		{"CPR in origin mode is relative", "\x1b[3;5r\x1b[?6h\x1b[2;4H\x1b[6n", []string{"\x1b[2;4R"}},
		{"several in one write", "\x1b[c\x1b[5n", []string{replyDA1 + replyDSR}},
		{"unknown queries unanswered", "\x1b[>0q\x1b[?6n\x1b[=c", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, replies := newTerm(10, 6, tc.in)
			if fmt.Sprintf("%q", *replies) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("replies %q, want %q", *replies, tc.want)
			}
		})
	}
}

// TestReplyMayReenter checks Reply and Logf run without the lock held.
func TestReplyMayReenter(t *testing.T) {
	var tm *Terminal
	var got Cursor
	tm = New(10, 3, Options{Reply: func([]byte) { got = tm.Cursor() }})
	tm.Write([]byte("ab\x1b[6n"))
	if got.X != 2 {
		t.Errorf("cursor read from Reply = %+v, want X 2", got)
	}
}

func TestModesAndState(t *testing.T) {
	tm, _ := newTerm(10, 3, "\x1b[?2004h\x1b[?2026h\x1b[?1h\x1b=\x1b[?25l\x1b[?1002h\x1b[?1006h\x1b[?1004h\x1b[4h\x1b[5 q")
	m := tm.Modes()
	want := Modes{AppCursor: true, AppKeypad: true, BracketedPaste: true, SyncOutput: true,
		MouseDrag: true, MouseSGR: true, FocusEvents: true, CursorHidden: true, Insert: true}
	if m != want {
		t.Errorf("modes %+v, want %+v", m, want)
	}
	if c := tm.Cursor(); c.Shape != CursorBarBlink || c.Visible {
		t.Errorf("cursor %+v, want blinking bar, hidden", c)
	}
	tm.Write([]byte("\x1b[?2004l\x1b[?2026l\x1b[?1l\x1b>\x1b[?25h\x1b[?1002l\x1b[4l\x1b[0 q\x1b[?1049h"))
	m = tm.Modes()
	if m.BracketedPaste || m.SyncOutput || m.AppCursor || m.AppKeypad || m.CursorHidden || m.MouseDrag || m.Insert || !m.AltScreen {
		t.Errorf("modes after reset %+v", m)
	}
	if c := tm.Cursor(); c.Shape != CursorDefault || !c.Visible {
		t.Errorf("cursor %+v, want default shape, visible", c)
	}
	if s := tm.Snapshot(); !s.Modes.AltScreen || s.Cursor.Shape != CursorDefault {
		t.Errorf("snapshot modes %+v", s.Modes)
	}
}

func TestTitleAndBell(t *testing.T) {
	tm, _ := newTerm(10, 3, "\x07a\x1b]0;one;two\x07\x07")
	if tm.Title() != "one;two" || tm.Bells() != 2 {
		t.Errorf("title %q bells %d, want one;two and 2", tm.Title(), tm.Bells())
	}
	tm.Write([]byte("\x1b]2;st-terminated\x1b\\\x1b]1;icon only\x07\x1b]7;file:///x\x07"))
	if tm.Title() != "st-terminated" {
		t.Errorf("title %q", tm.Title())
	}
	tm.Write([]byte("\x1b]2;" + strings.Repeat("long ", 2000) + "\x07"))
	if tm.Title() != "st-terminated" {
		t.Errorf("an over-long title replaced the title: %d bytes", len(tm.Title()))
	}
	if tm.Bells() != 2 {
		t.Errorf("BEL ending an OSC counted as a bell: %d", tm.Bells())
	}
	// An endless OSC swallows text but never grows without bound.
	tm.Write([]byte("\x1b]0;"))
	for range 1000 {
		tm.Write([]byte(strings.Repeat("x", 1000)))
	}
	if n := len(tm.sc.osc); n > maxOSC {
		t.Errorf("OSC buffer grew to %d bytes", n)
	}
	tm.Write([]byte("\x07visible"))
	if tm.Lines()[0] != "avisible" {
		t.Errorf("after endless OSC: %q", tm.Lines()[0])
	}
	if tm.Snapshot().Title != "st-terminated" {
		t.Errorf("snapshot title %q", tm.Snapshot().Title)
	}
}

func TestScrollback(t *testing.T) {
	t.Run("line feeds at the bottom", func(t *testing.T) {
		tm, _ := newTerm(10, 3, "1\r\n2\r\n3\r\n4\r\n5")
		if h := tm.History(-1); strings.Join(h, ",") != "1,2" {
			t.Errorf("history %q, want 1,2", h)
		}
		if tm.HistoryLen() != 2 || strings.Join(tm.History(1), ",") != "2" {
			t.Errorf("HistoryLen %d, History(1) %q", tm.HistoryLen(), tm.History(1))
		}
	})
	t.Run("auto-wrap at the bottom", func(t *testing.T) {
		tm, _ := newTerm(5, 2, "abcdefghijklm")
		if h := tm.History(-1); strings.Join(h, ",") != "abcde" {
			t.Errorf("history %q", h)
		}
		if got := screenText(tm); got != "fghij\nklm" {
			t.Errorf("screen %q", got)
		}
	})
	t.Run("IND NEL and SU", func(t *testing.T) {
		tm, _ := newTerm(10, 2, "a\r\nb\x1bDc\x1bEd\x1b[2S")
		if h := tm.History(-1); strings.Join(h, ",") != "a,b, c,d" {
			t.Errorf("history %q", h)
		}
	})
	t.Run("none from the alternate screen", func(t *testing.T) {
		tm, _ := newTerm(10, 2, "x\x1b[?1049h1\r\n2\r\n3\r\n4\x1b[2J\x1b[?1049l")
		if tm.HistoryLen() != 0 {
			t.Errorf("history %q, want none", tm.History(-1))
		}
	})
	t.Run("scroll-on-clear and 3J", func(t *testing.T) {
		tm, _ := newTerm(10, 4, "a\r\nb\r\n\r\n\x1b[2J")
		if h := tm.History(-1); strings.Join(h, ",") != "a,b" {
			t.Errorf("after 2J history %q, want a,b (used rows only)", h)
		}
		tm.Write([]byte("\x1b[3J"))
		if tm.HistoryLen() != 0 {
			t.Errorf("3J left %d lines", tm.HistoryLen())
		}
	})
	t.Run("repeated clears", func(t *testing.T) {
		tm, _ := newTerm(10, 3, "a\x1b[2J\x1b[H\x1b[2J\x1b[31m\x1b[2Jb\x1b[H\x1b[2J\x1b[H\x1b[J")
		if h := tm.History(-1); strings.Join(h, ",") != "a,b" {
			t.Errorf("history %q, want a,b", h)
		}
	})
	t.Run("limit", func(t *testing.T) {
		tm := New(10, 2, Options{Scrollback: 3})
		for i := range 20 {
			fmt.Fprintf(tm, "%d\r\n", i)
		}
		if h := tm.History(-1); strings.Join(h, ",") != "16,17,18" {
			t.Errorf("history %q, want the last 3", h)
		}
	})
	t.Run("negative keeps none", func(t *testing.T) {
		tm := New(10, 2, Options{Scrollback: -1})
		tm.Write([]byte("1\r\n2\r\n3\r\n4\x1b[2J"))
		if tm.HistoryLen() != 0 {
			t.Errorf("history %q", tm.History(-1))
		}
	})
	t.Run("default size", func(t *testing.T) {
		tm := New(10, 2, Options{})
		tm.Write([]byte(strings.Repeat("x\r\n", DefaultScrollback+50)))
		if tm.HistoryLen() != DefaultScrollback {
			t.Errorf("history %d lines, want %d", tm.HistoryLen(), DefaultScrollback)
		}
	})
	t.Run("cells with attributes", func(t *testing.T) {
		tm, _ := newTerm(6, 1, "\x1b[1;31mab\x1b[0m日\u0301\x1b[44m \x1b[0m\r\nnext")
		rows := tm.HistoryCells(0, 5)
		if len(rows) != 1 || len(rows[0]) != 6 {
			t.Fatalf("HistoryCells = %v", rows)
		}
		r := rows[0]
		if r[0].Rune != 'a' || r[0].Attr != AttrBold || r[0].FG != Indexed(9) {
			t.Errorf("cell 0 = %+v (bold red, brightened by vt10x)", r[0])
		}
		if r[2].Rune != '日' || r[2].Width != 2 || r[2].Comb != "\u0301" || r[3].Width != 0 {
			t.Errorf("wide cells = %+v %+v", r[2], r[3])
		}
		if r[4].BG != Indexed(4) || r[5].BG != ColorDefault {
			t.Errorf("background cells = %+v %+v", r[4], r[5])
		}
		if h := tm.History(-1); h[0] != "ab日\u0301" {
			t.Errorf("history text %q", h[0])
		}
		if got := tm.HistoryCells(5, 2); got != nil {
			t.Errorf("out-of-range HistoryCells = %v", got)
		}
	})
	t.Run("wrapped flag", func(t *testing.T) {
		tm, _ := newTerm(3, 1, "abcdef\r\n")
		if tm.h.n != 2 || !tm.h.at(0).wrapped || tm.h.at(1).wrapped {
			t.Errorf("wrapped flags wrong: %d lines", tm.h.n)
		}
	})
}

func TestWideCells(t *testing.T) {
	tm, _ := newTerm(6, 2, "a日b\U0001F600")
	row := tm.Snapshot().Cells[0]
	want := []Cell{{Rune: 'a', Width: 1}, {Rune: '日', Width: 2}, {Width: 0}, {Rune: 'b', Width: 1}, {Rune: 0x1F600, Width: 2}, {Width: 0}}
	for i, w := range want {
		if row[i] != w {
			t.Errorf("cell %d = %+v, want %+v", i, row[i], w)
		}
	}
	if c := tm.Cursor(); c.X != 5 || c.Y != 0 {
		t.Errorf("cursor %+v, want 5,0 (wrap pending)", c)
	}
}

func TestResize(t *testing.T) {
	tm, _ := newTerm(10, 4, "1\r\n2\r\n3\r\n4")
	tm.Resize(10, 2)
	if h := tm.History(-1); strings.Join(h, ",") != "1,2" {
		t.Errorf("shrink: history %q, want 1,2", h)
	}
	if got := screenText(tm); got != "3\n4" {
		t.Errorf("shrink: screen %q", got)
	}
	tm.Resize(30, 3)
	if c, r := tm.Size(); c != 30 || r != 3 {
		t.Errorf("size %dx%d", c, r)
	}
	tm.Write([]byte("\r\n\ta\tb\tc"))
	if got := tm.Lines()[2]; got != "        a       b       c" {
		t.Errorf("tab stops after widening: %q", got)
	}
	if tm.HistoryLen() != 2 {
		t.Errorf("history lost on resize: %d", tm.HistoryLen())
	}
	tm.Resize(0, -5)
	if c, r := tm.Size(); c != 1 || r != 1 {
		t.Errorf("clamped size %dx%d, want 1x1", c, r)
	}
	tm.Resize(MaxCols+1, MaxRows+1)
	if c, r := tm.Size(); c != MaxCols || r != MaxRows {
		t.Errorf("clamped size %dx%d", c, r)
	}
}

// TestPanicRecovery forces a panic inside a guarded emulator call and checks
// the terminal resets its emulator, keeps history and logs.
func TestPanicRecovery(t *testing.T) {
	var logs []string
	tm := New(10, 2, Options{Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	tm.Write([]byte("1\r\n2\r\n3\x1b[?2004h"))
	tm.mu.Lock()
	ok := tm.guardLocked(func() { panic("boom") })
	tm.mu.Unlock()
	tm.deliver()
	if ok {
		t.Fatal("guard reported success after a panic")
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "boom") {
		t.Errorf("logs %q", logs)
	}
	if tm.HistoryLen() != 1 {
		t.Errorf("history lost: %d", tm.HistoryLen())
	}
	if tm.Modes().BracketedPaste {
		t.Error("modes survived an emulator reset")
	}
	tm.Write([]byte("after"))
	if got := tm.Lines(); got[0] != "after" || len(got) != 2 {
		t.Errorf("after reset: %q", got)
	}
}

func TestNewClampsSize(t *testing.T) {
	var logs []string
	tm := New(-3, 0, Options{Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	if c, r := tm.Size(); c != 1 || r != 1 {
		t.Errorf("size %dx%d, want 1x1", c, r)
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "-3x0") || !strings.Contains(logs[0], "allowed") {
		t.Errorf("logs %q", logs)
	}
}

// TestConcurrentUse runs writers and readers at once (meaningful under -race).
func TestConcurrentUse(t *testing.T) {
	tm := New(40, 10, Options{Reply: func([]byte) {}})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 300 {
			fmt.Fprintf(tm, "\x1b[3%dmline %d \u65e5\x1b[0m\r\n\x1b[6n", i%8, i)
			if i%50 == 0 {
				tm.Resize(30+i%20, 8+i%5)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range 300 {
			s := tm.Snapshot()
			if len(s.Cells) != s.Rows || len(s.Cells[0]) != s.Cols {
				t.Errorf("snapshot %dx%d has %d rows of %d", s.Cols, s.Rows, len(s.Cells), len(s.Cells[0]))
				return
			}
			_ = tm.Lines()
			_ = tm.History(5)
			_ = tm.Cursor()
		}
	}()
	wg.Wait()
}
