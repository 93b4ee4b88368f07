package agentstate

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The questions the fixtures ask: every fixture, each as its kind's pane
// reads it and as a pane of unknown kind does.
var fixtureQuestions = map[string]*Question{
	"claude_waiting.txt": {
		Text: "Do you want to proceed?", Tool: "Bash", Input: "touch built-by-claude && seq 1 8",
		Options: []Option{
			{"1", "Yes"},
			{"2", "Yes, and always allow access to /home/me/project from this project"},
			{"3", "Yes, and switch to auto mode · auto mode handles these prompts for you"},
			{"4", "No"},
		},
	},
	"codex_waiting.txt": {
		Text: "Would you like to run the following command?", Tool: "exec_command", Input: "touch built-by-codex && seq 1 8",
		Options: []Option{
			{"y", "Yes, proceed"},
			{"p", "Yes, and don't ask again for commands that start with `touch built-by-codex`"},
			{"<Esc>", "No, and tell Codex what to do differently"},
		},
	},
	"gemini_waiting.txt": {
		Text: "Allow execution of [Shell]?", Tool: "Shell", Input: "touch built-by-gemini",
		Options: []Option{{"1", "Allow once"}, {"2", "Allow for this session"}, {"<Esc>", "No, suggest changes"}},
	},
	"gemini_trust.txt": {
		Text:    "Do you trust the files in this folder?",
		Options: []Option{{"1", "Trust folder (proj)"}, {"2", "Trust parent folder (gemhome)"}, {"3", "Don't trust"}},
	},
	"aider_waiting.txt": {
		Text: "Add file to the chat?", Input: "main.go",
		Options: []Option{{"y<Enter>", "Yes"}, {"n<Enter>", "No"}, {"d<Enter>", "Don't ask again"}},
	},
	// Answered, at work, done or idle: nothing asked.
	"claude_answered.txt": nil, "claude_done.txt": nil, "claude_idle.txt": nil, "claude_working.txt": nil,
	"codex_answered.txt": nil, "codex_done.txt": nil, "codex_idle.txt": nil, "codex_working.txt": nil,
	"gemini_done.txt": nil, "gemini_idle.txt": nil, "gemini_working.txt": nil,
	"aider_answered.txt": nil,
}

// fixtureKind is the kind of agent a fixture was captured from.
func fixtureKind(file string) string {
	kind, _, _ := strings.Cut(file, "_")
	return kind
}

func fixtureFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for i, p := range paths {
		paths[i] = filepath.Base(p)
	}
	return paths
}

func TestParseQuestionFixtures(t *testing.T) {
	for _, file := range fixtureFiles(t) {
		want, ok := fixtureQuestions[file]
		if !ok {
			t.Errorf("%s: no question given for the fixture", file)
			continue
		}
		s := readScreen(t, file)
		for _, kind := range []string{fixtureKind(file), ""} {
			got := ParseQuestion(kind, s)
			if !got.Equal(want) {
				t.Errorf("%s as %q:\n got %s\nwant %s", file, kind, dump(got), dump(want))
			}
			if got != nil && got.kind != fixtureKind(file) {
				t.Errorf("%s as %q: kind %q, want %q (from the dialog's look)", file, kind, got.kind, fixtureKind(file))
			}
		}
	}
}

// A screen the rules call waiting gives a question, and one they do not
// gives none: the parser and the rules see the same live bottom. The title
// is no part of the screen (Gemini CLI's ✋ says waiting on its own). The
// synthetic screens are the rules' own cases (TestDetect).
func TestParseQuestionAgreesWithRules(t *testing.T) {
	type screenCase struct {
		name, kind string
		s          Screen
	}
	var cases []screenCase
	for _, file := range fixtureFiles(t) {
		s := readScreen(t, file)
		cases = append(cases, screenCase{file, fixtureKind(file), s}, screenCase{file, "", s})
	}
	cases = append(cases,
		screenCase{"claude permission prompt", "", on(3, "Bash command\n  rm -rf build\nDo you want to proceed?\n❯ 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n")},
		screenCase{"a menu question with output after its menu", "", bottom("Do you want to proceed?\n❯ 1. Yes\n  2. No\n" + strings.Repeat("work\n", 12))},
		screenCase{"an old question scrolled away", "", bottom("Do you want to proceed?\n❯ 1. Yes\n  2. No\n" + strings.Repeat("line\n", 20) + "> \n")},
		screenCase{"an answer's numbered list over the prompt", "claude", claudeAnswerList},
		screenCase{"aider confirmation", "aider", on(0, "Add main.go to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: ")},
		screenCase{"a one-line question answered, output after it", "", bottom("Run tests? [y/n] y\nok  \tpkg\t0.1s\n")},
		screenCase{"a one-line question", "", on(0, "Run tests? [y/n] ")},
	)
	for _, c := range cases {
		all, _ := Default().Apply(c.kind, c.s)
		rule := ""
		for _, r := range all {
			if r.State == Waiting && r.Region != "title" && r.Match != nil {
				rule = r.Rule
				break
			}
		}
		q := ParseQuestion(c.kind, c.s)
		if (rule != "") != (q != nil) {
			t.Errorf("%s as %q: rule %q says waiting (%v), the question is %s", c.name, c.kind, rule, rule != "", dump(q))
		}
	}
}

func dump(q *Question) string {
	if q == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("text=" + q.Text + " tool=" + q.Tool + " input=" + strings.ReplaceAll(q.Input, "\n", `\n`) + " options=")
	for _, o := range q.Options {
		b.WriteString("[" + o.Key + "=" + o.Label + "]")
	}
	return b.String()
}

// lines is a fixture's rows, copied.
func lines(t *testing.T, file string) (Screen, []string) {
	s := readScreen(t, file)
	return s, slices.Clone(s.Lines)
}

// replaceRows puts rows in place of n rows at row at, moving the cursor
// with the rows under them.
func replaceRows(s Screen, at, n int, rows ...string) Screen {
	old := s.Lines
	s.Lines = append(append(slices.Clone(old[:at]), rows...), old[at+n:]...)
	if s.CursorY >= at+n {
		s.CursorY += len(rows) - n
	}
	return s
}

// wrapWords wraps text at width columns as the agents do: a word that
// does not fit goes to the next row, one longer than a row is cut.
func wrapWords(text string, width int) []string {
	var rows []string
	row := ""
	for _, w := range strings.Fields(text) {
		switch {
		case row == "":
			row = w
		case len(row)+1+len(w) <= width:
			row += " " + w
			continue
		default:
			rows, row = append(rows, row), w
		}
		for len(row) > width {
			rows, row = append(rows, row[:width]), row[width:]
		}
	}
	return append(rows, row)
}

const longCommand = "go test -race -count=1 -run 'TestParseQuestion|TestChoose|TestKeyFor' ./pane/agentstate/ ./internal/server/ ./internal/client/ && echo all the tests passed with no failures at all"

// A command too long for a row is wrapped by the agent: it reads back as
// one line. A command of several lines keeps them, and a word too long for
// a row (a URL) is cut, not spaced.
func TestParseQuestionWrappedCommand(t *testing.T) {
	const url = "https://example.com/a/very/long/path/that/does/not/fit/on/one/row/of/the/dialog/at/all/even/on/a/wide/screen/index.html"
	multi := "cat > notes.txt <<'EOF'\nhello\n  indented\nEOF"
	for _, cmd := range []string{longCommand, "curl -fsS " + url + url, multi, "make"} {
		var rows []string
		for _, l := range strings.Split(cmd, "\n") {
			rows = append(rows, wrapWords(l, 118)...)
		}
		if cmd == multi {
			rows = strings.Split(multi, "\n")
		}
		// Claude Code: between the ╌ rules, one column in, 118 wide.
		s := readScreen(t, "claude_waiting.txt")
		var claude []string
		for _, r := range rows {
			claude = append(claude, " "+r)
		}
		if q := ParseQuestion("claude", replaceRows(s, 16, 1, claude...)); q == nil || q.Input != cmd {
			t.Errorf("claude, %d rows: %s, want input %q", len(rows), dump(q), cmd)
		}
		// Codex: after "$ ", two columns in, as wide as the screen
		// (its widest row).
		s = readScreen(t, "codex_waiting.txt")
		codexRows := wrapWords("$ "+strings.ReplaceAll(cmd, "\n", "\n "), 116)
		if strings.Contains(cmd, "\n") {
			codexRows = strings.Split("$ "+cmd, "\n")
		}
		for i := range codexRows {
			codexRows[i] = "  " + codexRows[i]
		}
		// Codex draws nothing across its screen: its width is a guess, and
		// a word cut reads as two.
		if q := ParseQuestion("codex", replaceRows(s, 30, 1, codexRows...)); !strings.Contains(cmd, url) && (q == nil || q.Input != cmd) {
			t.Errorf("codex, %d rows: %s, want input %q", len(codexRows), dump(q), cmd)
		}
		// Gemini CLI: in a box within the dialog's box, 114 wide.
		s = readScreen(t, "gemini_waiting.txt")
		var gemini []string
		for _, r := range wrapWords(cmd, 114) {
			gemini = append(gemini, "│ │ "+r+strings.Repeat(" ", 114-len(r))+" │ │")
		}
		if cmd == multi {
			gemini = gemini[:0]
			for _, r := range strings.Split(multi, "\n") {
				gemini = append(gemini, "│ │ "+r+strings.Repeat(" ", 114-len(r))+" │ │")
			}
		}
		if q := ParseQuestion("gemini", replaceRows(s, 25, 1, gemini...)); q == nil || q.Input != cmd {
			t.Errorf("gemini, %d rows: %s, want input %q", len(gemini), dump(q), cmd)
		}
	}
}

// A key hint at the end of a label is the option's key when it is one key
// that only chooses; the label is what is left.
func TestOptionHints(t *testing.T) {
	for label, want := range map[string]Option{
		"Yes, proceed (y)":           {"y", "Yes, proceed"},
		"Yes (Y)":                    {"y", "Yes"},
		"No, suggest changes (esc)":  {"<Esc>", "No, suggest changes"},
		"Yes, allow all (shift+tab)": {"3", "Yes, allow all"},
		"Trust folder (proj)":        {"3", "Trust folder (proj)"},
		"(y)":                        {"3", "(y)"}, // all label
		"Run it (y) now":             {"3", "Run it (y) now"},
	} {
		if got := optionOf(choice{num: 3, label: label}); got != want {
			t.Errorf("%q: %v, want %v", label, got, want)
		}
	}
}

// A choice too long for its row goes on under its label: one option, its
// key hint at the end of the second row (Codex in 40 columns).
func TestParseQuestionWrappedOption(t *testing.T) {
	s := bottom("  Would you like to run the following\n\n  [… 42 lines] ctrl+g view all\n\n› 1. Yes, proceed (y)\n  2. No, and tell Codex what to do\n     differently (esc)\n\n  Press enter to confirm or esc to cance\n")
	want := &Question{Text: "Would you like to run the following command?", Options: []Option{{"y", "Yes, proceed"}, {"<Esc>", "No, and tell Codex what to do differently"}}}
	// The question is clipped too; give it whole.
	s.Lines[0] = "  Would you like to run the following command?"
	want.Tool = "exec_command"
	if q := ParseQuestion("codex", s); !q.Equal(want) {
		t.Errorf("got %s\nwant %s", dump(q), dump(want))
	}
}

// A menu is read whole or not at all at its top: scrolled so that its
// first choices or its question are off the screen, it gives nil. Cut at
// the bottom, only the choices shown are given.
func TestParseQuestionScrolled(t *testing.T) {
	s, rows := lines(t, "claude_waiting.txt")
	for _, from := range []int{19, 20, 21} { // "❯ 1. Yes" at the top; then "2." and "3."
		scrolled := Screen{Lines: append(slices.Clone(rows[from:]), make([]string, from)...), CursorY: max(s.CursorY-from, 0)}
		if q := ParseQuestion("claude", scrolled); q != nil {
			t.Errorf("from row %d: %s, want nil", from, dump(q))
		}
	}
	cut := Screen{Lines: slices.Clone(rows[:21]), CursorY: s.CursorY}
	want := &Question{Text: "Do you want to proceed?", Tool: "Bash", Input: "touch built-by-claude && seq 1 8", Options: fixtureQuestions["claude_waiting.txt"].Options[:2]}
	if q := ParseQuestion("claude", cut); !q.Equal(want) {
		t.Errorf("cut after choice 2: %s\nwant %s", dump(q), dump(want))
	}
}

// Only the live bottom of the screen asks: output under a menu means it was
// answered, and a cursor elsewhere (not hidden) means input goes elsewhere.
func TestParseQuestionLive(t *testing.T) {
	s := readScreen(t, "claude_waiting.txt")
	out := make([]string, 12)
	for i := range out {
		out[i] = "output line"
	}
	after := replaceRows(s, 25, 12, out...) // under "Esc to cancel"
	after.CursorY = 37
	if q := ParseQuestion("claude", after); q != nil {
		t.Errorf("output under the menu: %s, want nil", dump(q))
	}
	near := replaceRows(s, 25, 7, out[:7]...) // 9 rows under its last choice: hints
	near.CursorY = 31
	if q := ParseQuestion("claude", near); q == nil {
		t.Errorf("rows of hints under the menu: nil, want the question")
	}
	away := s
	away.CursorY = 2
	if q := ParseQuestion("claude", away); q != nil {
		t.Errorf("the cursor at the top: %s, want nil", dump(q))
	}
	away.CursorHidden = true
	if q := ParseQuestion("claude", away); q == nil {
		t.Errorf("the cursor hidden: nil, want the question")
	}
	one := bottom("Do you want to proceed?\n❯ 1. Yes\n\nEsc to cancel\n")
	if q := ParseQuestion("", one); q != nil {
		t.Errorf("a single numbered row is no menu: %s", dump(q))
	}
	list := bottom("Here is the plan:\n1. Read the code\n2. Fix the bug\n")
	if q := ParseQuestion("", list); q != nil {
		t.Errorf("a numbered list with no question over it: %s", dump(q))
	}
	if q := ParseQuestion("claude", claudeAnswerList); q != nil {
		t.Errorf("an answer's numbered list, no choice marked: %s", dump(q))
	}
}

// claudeAnswerList is Claude Code done with a turn whose answer ends in a
// question and a numbered list, right over its prompt.
var claudeAnswerList = on(8, `● I can do it two ways.
  Which do you prefer?
  1. Keep the cache
  2. Drop the cache

✻ Cooked for 3s

────────────────────────────────────────────────────────────────────────────────
❯ 
────────────────────────────────────────────────────────────────────────────────
  ⏸ manual mode on · ? for shortcuts · ← for agents`)

// The question is the row in the agents' words, not the nearest row that
// ends with "?" (Codex's reason can).
func TestParseQuestionKnownWording(t *testing.T) {
	s := readScreen(t, "codex_waiting.txt")
	s = replaceRows(s, 28, 1, "  Reason: May I rerun the browser tests outside the sandbox?")
	q := ParseQuestion("codex", s)
	if q == nil || q.Text != "Would you like to run the following command?" {
		t.Errorf("got %s", dump(q))
	}
}

const claudeEdit = `────────────────────────────────────────────────────────────────────────────────
 %s
 main.go
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 1  package main
 2 -func f() {}
 2 +func f() int { return 1 }
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 %s
 ❯ 1. Yes
   2. Yes, allow all edits during this session (shift+tab)
   3. No, and tell Claude what to do differently (esc)

 Esc to cancel
`

// Claude Code's edits: the header names the tool, the question the file.
func TestParseQuestionClaudeEdits(t *testing.T) {
	opts := []Option{{"1", "Yes"}, {"2", "Yes, allow all edits during this session"}, {"<Esc>", "No, and tell Claude what to do differently"}}
	for _, tc := range []struct{ header, question, tool, input string }{
		{"Edit file", "Do you want to make this edit to main.go?", "Edit", "main.go"},
		{"Create file", "Do you want to create notes/todo.md?", "Write", "notes/todo.md"},
		{"Something new", "Do you want to proceed?", "", ""},
	} {
		text := strings.Replace(strings.Replace(claudeEdit, "%s", tc.header, 1), "%s", tc.question, 1)
		s := on(10, text)
		want := &Question{Text: tc.question, Tool: tc.tool, Input: tc.input, Options: opts}
		if q := ParseQuestion("claude", s); !q.Equal(want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.header, dump(q), dump(want))
		}
	}
}

// One-line prompts: aider's, with every answer it offers, typed into
// before Enter; with a subject only where aider prints one; a [y/n] one.
func TestParseQuestionLinePrompts(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Screen
		want *Question
	}{
		{"aider, a group of files", on(3, "\nsrc/a.go\nsrc/b.go\nAdd file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: "),
			&Question{Text: "Add file to the chat?", Input: "src/a.go\nsrc/b.go", Options: []Option{{"y<Enter>", "Yes"}, {"n<Enter>", "No"}, {"a<Enter>", "All"}, {"s<Enter>", "Skip all"}, {"d<Enter>", "Don't ask again"}}}},
		{"aider, typed into", on(2, "\nmain.go\nAdd file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y"),
			&Question{Text: "Add file to the chat?", Input: "main.go", Options: []Option{{"y<Enter>", "Yes"}, {"n<Enter>", "No"}, {"d<Enter>", "Don't ask again"}}}},
		{"aider, no subject", on(2, "Repo-map: disabled\nhttps://aider.chat/HISTORY.html#release-notes\nWould you like to see what's new in this version? (Y)es/(N)o [Yes]:"),
			&Question{Text: "Would you like to see what's new in this version?", Options: []Option{{"y<Enter>", "Yes"}, {"n<Enter>", "No"}}}},
		{"aider, answered", on(2, "main.go\nAdd file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y\n"), nil},
		{"a [y/N] prompt", on(1, "Writing config.toml\nOverwrite config.toml? [y/N] "),
			&Question{Text: "Overwrite config.toml?", Options: []Option{{"y<Enter>", "Yes"}, {"n<Enter>", "No"}}}},
	} {
		q := ParseQuestion("", tc.s)
		if !q.Equal(tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, dump(q), dump(tc.want))
		}
	}
}

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		file, choice, key string // key "" wants an error
		err               string // a part of the error
	}{
		{"claude_waiting.txt", "1", "1", ""},
		{"claude_waiting.txt", "yes", "1", ""},
		{"claude_waiting.txt", "Yes", "1", ""},
		{"claude_waiting.txt", "y", "1", ""},
		{"claude_waiting.txt", "allow", "1", ""},
		{"claude_waiting.txt", "always", "2", ""},
		{"claude_waiting.txt", "auto", "3", ""},
		{"claude_waiting.txt", "no", "4", ""},
		{"claude_waiting.txt", "deny", "4", ""},
		{"claude_waiting.txt", " 4 ", "4", ""},
		{"claude_waiting.txt", "esc", "", "the options are 1=Yes; 2=Yes, and always allow access to /home/me/project from this project; 3=Yes, and switch to auto mode · auto mode handles these prompts for you; 4=No"},
		{"claude_waiting.txt", "<Esc>", "", "4=No"},
		{"claude_waiting.txt", "maybe", "", `no option is "maybe"; the options are 1=Yes; 2=`},
		{"claude_waiting.txt", "and", "", `"and" could mean more than one option: 2=Yes, and always allow access to /home/me/project from this project; 3=Yes, and switch`},
		{"claude_waiting.txt", "5", "", "4=No"},
		{"claude_waiting.txt", "", "", "no choice given"},

		{"codex_waiting.txt", "1", "y", ""},
		{"codex_waiting.txt", "y", "y", ""},
		{"codex_waiting.txt", "Y", "y", ""},
		{"codex_waiting.txt", "yes", "y", ""},
		{"codex_waiting.txt", "proceed", "y", ""},
		{"codex_waiting.txt", "p", "p", ""},
		{"codex_waiting.txt", "2", "p", ""},
		{"codex_waiting.txt", "always", "p", ""},
		{"codex_waiting.txt", "no", "<Esc>", ""},
		{"codex_waiting.txt", "n", "<Esc>", ""},
		{"codex_waiting.txt", "esc", "<Esc>", ""},
		{"codex_waiting.txt", "<Esc>", "<Esc>", ""},
		{"codex_waiting.txt", "<esc>", "<Esc>", ""},
		{"codex_waiting.txt", "3", "<Esc>", ""},
		{"codex_waiting.txt", "tell codex", "<Esc>", ""},
		{"codex_waiting.txt", "maybe", "", "y=Yes, proceed; p=Yes, and don't ask again for commands that start with `touch built-by-codex`; <Esc>=No, and tell Codex what to do differently"},
		{"codex_waiting.txt", "yes, and", "p", ""},
		{"codex_waiting.txt", "touch", "p", ""},

		{"gemini_waiting.txt", "1", "1", ""},
		{"gemini_waiting.txt", "yes", "1", ""},
		{"gemini_waiting.txt", "y", "1", ""},
		{"gemini_waiting.txt", "allow", "1", ""},
		{"gemini_waiting.txt", "always", "2", ""},
		{"gemini_waiting.txt", "session", "2", ""},
		{"gemini_waiting.txt", "allow for this session", "2", ""},
		{"gemini_waiting.txt", "no", "<Esc>", ""},
		{"gemini_waiting.txt", "esc", "<Esc>", ""},
		{"gemini_waiting.txt", "3", "<Esc>", ""},
		{"gemini_waiting.txt", "maybe", "", "1=Allow once; 2=Allow for this session; <Esc>=No, suggest changes"},

		{"gemini_trust.txt", "yes", "1", ""},
		{"gemini_trust.txt", "parent", "2", ""},
		{"gemini_trust.txt", "no", "3", ""},
		{"gemini_trust.txt", "always", "", `no option means "always"`},
		{"gemini_trust.txt", "trust", "", `"trust" could mean more than one option`},

		{"aider_waiting.txt", "y", "y<Enter>", ""},
		{"aider_waiting.txt", "Y", "y<Enter>", ""},
		{"aider_waiting.txt", "yes", "y<Enter>", ""},
		{"aider_waiting.txt", "y<Enter>", "y<Enter>", ""},
		{"aider_waiting.txt", "no", "n<Enter>", ""},
		{"aider_waiting.txt", "n", "n<Enter>", ""},
		{"aider_waiting.txt", "d", "d<Enter>", ""},
		{"aider_waiting.txt", "never", "d<Enter>", ""},
		{"aider_waiting.txt", "don't ask again", "d<Enter>", ""},
		// aider's "Don't ask again" answers no: it is not "always".
		{"aider_waiting.txt", "always", "", `no option means "always"; the options are y<Enter>=Yes; n<Enter>=No; d<Enter>=Don't ask again`},
		{"aider_waiting.txt", "1", "", "y<Enter>=Yes"},
		{"aider_waiting.txt", "esc", "", "y<Enter>=Yes"},
	} {
		q := ParseQuestion(fixtureKind(tc.file), readScreen(t, tc.file))
		if q == nil {
			t.Fatalf("%s: no question", tc.file)
		}
		o, err := q.Choose(tc.choice)
		switch {
		case tc.key != "" && err != nil:
			t.Errorf("%s: Choose(%q): %v, want %s", tc.file, tc.choice, err, tc.key)
		case tc.key != "" && o.Key != tc.key:
			t.Errorf("%s: Choose(%q) = %s=%s, want %s", tc.file, tc.choice, o.Key, o.Label, tc.key)
		case tc.key == "" && err == nil:
			t.Errorf("%s: Choose(%q) = %s=%s, want an error", tc.file, tc.choice, o.Key, o.Label)
		case tc.key == "" && !strings.Contains(err.Error(), tc.err):
			t.Errorf("%s: Choose(%q): %v\nwant it to say %q", tc.file, tc.choice, err, tc.err)
		}
	}
}

// "always" names one option: two that stop asking make it ambiguous.
func TestChooseAmbiguousAlways(t *testing.T) {
	q := &Question{Text: "Do you want to proceed?", Options: []Option{{"1", "Yes"}, {"2", "Yes, and always allow it"}, {"3", "Yes, and don't ask again this session"}, {"4", "No"}}}
	if o, err := q.Choose("always"); err == nil || !strings.Contains(err.Error(), "2=Yes, and always allow it; 3=Yes, and don't ask again this session") {
		t.Errorf("Choose(always) = %v, %v; want an error naming 2 and 3", o, err)
	}
	// A question made by hand is not numbered on a screen: "1" is a key.
	if o, err := q.Choose("3"); err != nil || o.Key != "3" {
		t.Errorf("Choose(3) = %v, %v", o, err)
	}
}

func TestKeyFor(t *testing.T) {
	for _, tc := range []struct{ file, allow, deny string }{
		{"claude_waiting.txt", "1", "4"},
		{"codex_waiting.txt", "y", "<Esc>"},
		{"gemini_waiting.txt", "1", "<Esc>"},
		{"gemini_trust.txt", "1", "3"},
		{"aider_waiting.txt", "y<Enter>", "n<Enter>"},
	} {
		q := ParseQuestion(fixtureKind(tc.file), readScreen(t, tc.file))
		if o, ok := q.KeyFor("allow"); !ok || o.Key != tc.allow {
			t.Errorf("%s: KeyFor(allow) = %v, %v; want %s", tc.file, o, ok, tc.allow)
		}
		if o, ok := q.KeyFor("deny"); !ok || o.Key != tc.deny {
			t.Errorf("%s: KeyFor(deny) = %v, %v; want %s", tc.file, o, ok, tc.deny)
		}
		if o, ok := q.KeyFor("ask"); ok {
			t.Errorf("%s: KeyFor(ask) = %v", tc.file, o)
		}
	}
	// Allowing once never switches the agent's mode, wherever that option
	// is.
	q := &Question{Text: "Do you want to proceed?", Options: []Option{{"1", "Yes, and switch to auto mode"}, {"2", "Yes"}, {"3", "No"}}}
	if o, ok := q.KeyFor("allow"); !ok || o.Key != "2" {
		t.Errorf("KeyFor(allow) under a mode switch = %v, %v; want 2", o, ok)
	}
	// No option refuses (the menu cut at its bottom): no key to deny with.
	q = &Question{Text: "Do you want to proceed?", Options: []Option{{"1", "Yes"}, {"2", "Yes, and always allow it"}}}
	if o, ok := q.KeyFor("deny"); ok {
		t.Errorf("KeyFor(deny) with no refusal = %v", o)
	}
	// Aider's "Don't ask again" refuses and stops asking: not a plain deny.
	q = &Question{Text: "Add file?", Options: []Option{{"y<Enter>", "Yes"}, {"d<Enter>", "Don't ask again"}}}
	if o, ok := q.KeyFor("deny"); ok {
		t.Errorf("KeyFor(deny) with only don't ask again = %v", o)
	}
}

func TestDescribe(t *testing.T) {
	q := ParseQuestion("claude", readScreen(t, "claude_waiting.txt"))
	want := `claude asks "Do you want to proceed?" (Bash: touch built-by-claude && seq 1 8): answer with send_keys: "1" = Yes, "2" = Yes, and always allow access to /home/me/project from this project, "3" = Yes, and switch to auto mode · auto mode handles these prompts for you, "4" = No`
	if got := q.Describe(); got != want {
		t.Errorf("claude:\n got %s\nwant %s", got, want)
	}
	q = ParseQuestion("aider", readScreen(t, "aider_waiting.txt"))
	want = `aider asks "Add file to the chat?" (main.go): answer with send_keys: "y<Enter>" = Yes, "n<Enter>" = No, "d<Enter>" = Don't ask again`
	if got := q.Describe(); got != want {
		t.Errorf("aider:\n got %s\nwant %s", got, want)
	}
	q = &Question{Text: "Run it?", Tool: "exec_command", Input: "cat <<EOF\nhi\nEOF", Options: []Option{{"y", "Yes"}, {"<Esc>", "No"}}}
	want = `the agent asks "Run it?" (exec_command: cat <<EOF ⏎ hi ⏎ EOF): answer with send_keys: "y" = Yes, "<Esc>" = No`
	if got := q.Describe(); got != want || strings.Contains(got, "\n") {
		t.Errorf("hand-made:\n got %s\nwant %s", got, want)
	}
}

func TestQuestionEqual(t *testing.T) {
	a := ParseQuestion("codex", readScreen(t, "codex_waiting.txt"))
	b := ParseQuestion("", readScreen(t, "codex_waiting.txt"))
	if !a.Equal(b) || !b.Equal(a) {
		t.Errorf("the same question read twice differs")
	}
	for name, change := range map[string]func(q *Question){
		"text":         func(q *Question) { q.Text += "!" },
		"tool":         func(q *Question) { q.Tool = "shell" },
		"input":        func(q *Question) { q.Input += " x" },
		"option key":   func(q *Question) { q.Options[0].Key = "1" },
		"option label": func(q *Question) { q.Options[2].Label = "No" },
		"options":      func(q *Question) { q.Options = q.Options[:2] },
	} {
		c := *a
		c.Options = slices.Clone(a.Options)
		change(&c)
		if a.Equal(&c) {
			t.Errorf("a different %s is equal", name)
		}
	}
	var none *Question
	if !none.Equal(nil) || none.Equal(a) || a.Equal(nil) {
		t.Errorf("nil questions")
	}
}

// Reading a question costs a few allocations: it runs when a question
// settles, and a screen that asks nothing costs little more than its rows.
func TestParseQuestionAllocations(t *testing.T) {
	for file, most := range map[string]float64{"claude_waiting.txt": 32, "codex_waiting.txt": 32, "claude_idle.txt": 6, "aider_waiting.txt": 32} {
		s := readScreen(t, file)
		ParseQuestion("", s) // compile the patterns
		if n := testing.AllocsPerRun(20, func() { ParseQuestion(fixtureKind(file), s) }); n > most {
			t.Errorf("%s: %.0f allocations, want at most %.0f", file, n, most)
		}
	}
}

func BenchmarkParseQuestion(b *testing.B) {
	for _, file := range []string{"claude_waiting.txt", "codex_waiting.txt", "gemini_waiting.txt", "claude_idle.txt"} {
		b.Run(file, func(b *testing.B) {
			s := readScreen(b, file)
			b.ReportAllocs()
			for b.Loop() {
				ParseQuestion(fixtureKind(file), s)
			}
		})
	}
}

// Whatever the screen, reading it does not fail, and what it reads is
// usable: every option has a key that chooses it, and Describe is one
// line.
func FuzzParseQuestion(f *testing.F) {
	for _, file := range []string{"claude_waiting.txt", "codex_waiting.txt", "gemini_waiting.txt", "gemini_trust.txt", "aider_waiting.txt"} {
		s := readScreen(f, file)
		f.Add(strings.Join(s.Lines, "\n"), s.CursorY, s.CursorHidden)
	}
	f.Fuzz(func(t *testing.T, text string, y int, hidden bool) {
		s := Screen{Lines: strings.Split(text, "\n"), CursorY: y, CursorHidden: hidden}
		for _, kind := range []string{"", "claude"} {
			q := ParseQuestion(kind, s)
			if q == nil {
				continue
			}
			if len(q.Options) == 0 {
				t.Fatalf("a question with no options: %s", dump(q))
			}
			for _, o := range q.Options {
				if o.Key == "" || o.Label == "" {
					t.Fatalf("an option without a key or label: %s", dump(q))
				}
				if c, err := q.Choose(o.Key); err != nil || c.Key != o.Key {
					t.Fatalf("Choose(%q) = %v, %v: %s", o.Key, c, err, dump(q))
				}
			}
			if d := q.Describe(); strings.Contains(d, "\n") {
				t.Fatalf("Describe is more than a line: %q", d)
			}
		}
	})
}
