package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/pane/term"
)

func TestParseGood(t *testing.T) {
	data := `# my melmux
prefix = "C-a"
shell = "/bin/zsh"
scrollback = 20000
max_clients = 4
remain_on_exit = "on"

[status]
fg = "black"
bg = "#5f87af"
active_bg = "colour33"
focus = "brightgreen"

[bindings]
"|" = "split-right"
"-" = "split-down"
"%" = "none"
"C-x" = "kill-pane"
"a" = "run spawn-agent --task 'review the diff'"
`
	cfg, err := Parse([]byte(data), "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Prefix, want.Shell, want.Scrollback, want.MaxClients, want.RemainOnExit = "C-a", "/bin/zsh", 20000, 4, RemainOn
	want.Status.FG, want.Status.BG = term.Indexed(0), term.RGB(0x5f, 0x87, 0xaf)
	want.Status.ActiveBG, want.Status.Focus = term.Indexed(33), term.Indexed(10)
	want.Bindings = map[string]string{"|": "split-right", "-": "split-down", "%": "none", "C-x": "kill-pane",
		"a": "run spawn-agent --task 'review the diff'"}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got  %+v\nwant %+v", cfg, want)
	}
	// The result must be usable by ui as is.
	in, err := ui.NewInput(cfg.Prefix, cfg.Bindings)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, b := range in.Bindings() {
		keys = append(keys, b.Keys+"="+b.Command)
	}
	all := strings.Join(keys, ",")
	for _, w := range []string{"C-a |=split-right", "C-a C-a=send-prefix", "C-x=kill-pane", "C-a a=run spawn-agent --task 'review the diff'"} {
		if !strings.Contains(all, w) {
			t.Errorf("bindings %s lack %s", all, w)
		}
	}
	if strings.Contains(all, "C-a %=") {
		t.Errorf("%% was unbound but is listed: %s", all)
	}
}

func TestParseEmptyIsDefaults(t *testing.T) {
	cfg, err := Parse(nil, "config.toml")
	if err != nil || !reflect.DeepEqual(cfg, Defaults()) {
		t.Fatalf("got %+v, %v", cfg, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string // substrings of the error, in order of lines
	}{
		{"syntax", "prefix = \"C-a\"\nscrollback = = 3\n", []string{"config.toml:2: scrollback: not valid TOML: "}},
		{"wrong type", "prefix = \"C-a\"\n\nscrollback = \"lots\"\n", []string{"config.toml:3: scrollback: must be a whole number of lines, not a string"}},
		{"unknown top key", "prefix = \"C-a\"\ncolour = \"red\"\n", []string{"config.toml:2: colour: unknown key"}},
		{"unknown table", "[mouse]\nenabled = true\n", []string{"config.toml:1: mouse: unknown key"}},
		{"status not a table", "status = \"green\"\n", []string{"config.toml:1: status: must be a table ([status]), not a string"}},
		{"colour not a string", "[status]\nfg = 3\n", []string{"config.toml:2: status.fg: must be a string, not an integer"}},
		{"bad prefix", "\nprefix = \"Ctrl-a\"\n", []string{"config.toml:2: prefix:", `bad key name "Ctrl-a"`}},
		{"bad scrollback", "scrollback = -5\n", []string{"config.toml:1: scrollback: -5 lines is out of range (0 to 1000000)"}},
		{"bad max_clients", "max_clients = 0\n", []string{"config.toml:1: max_clients: 0 clients is out of range (1 to 1000)"}},
		{"max_clients type", "max_clients = \"many\"\n", []string{"config.toml:1: max_clients: must be a whole number of clients, not a string"}},
		{"bad remain_on_exit", "remain_on_exit = \"yes\"\n", []string{`config.toml:1: remain_on_exit: "yes" is not auto, on or off`}},
		{"remain_on_exit not a string", "remain_on_exit = true\n", []string{"config.toml:1: remain_on_exit: must be a string, not a boolean"}},
		{"relative shell", "shell = \"bin/zsh\"\n", []string{"config.toml:1: shell:", "absolute path"}},
		{"bad colour", "[status]\nfg = \"blurple\"\n", []string{"config.toml:2: status.fg: colour \"blurple\" not understood"}},
		{"unknown status key", "[status]\n\nfg = \"red\"\nblink = \"yes\"\n", []string{"config.toml:4: status.blink: unknown status colour"}},
		{"bad binding key", "[bindings]\n\"Hyper-x\" = \"zoom\"\n", []string{`config.toml:2: bindings.Hyper-x:`, "bad key name"}},
		{"bad binding command", "[bindings]\nz = \"zoom\"\nq = \"quit-everything\"\n", []string{"config.toml:3: bindings.q:", `bad command "quit-everything": unknown command`, "split-right"}},
		{"bad binding args", "[bindings]\n1 = \"select-tab one\"\n", []string{"config.toml:2: bindings.1:", "tab number must be 0 or more"}},
		{"two problems", "prefix = \"C-\"\n[status]\nbg = \"#12\"\n", []string{"config.toml:1: prefix:", "config.toml:3: status.bg:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tc.data), "config.toml")
			if err == nil {
				t.Fatalf("no error for %q", tc.data)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			// Only a file that does not parse is left out whole
			// (TestParseKeepsTheGoodEntries has the others).
			if syntax := tc.name == "syntax"; errors.Is(err, ErrSyntax) != syntax || syntax && !reflect.DeepEqual(cfg, Defaults()) {
				t.Errorf("syntax error %v: errors.Is(err, ErrSyntax) = %v, config %+v", syntax, errors.Is(err, ErrSyntax), cfg)
			}
			msg := err.Error()
			at := 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (after offset %d)", msg, w, at)
				}
				at += i
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	p, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "melmux", "config.toml"); p != want {
		t.Errorf("Path %q, want %q", p, want)
	}
	if cfg, err := Load(); err != nil || !reflect.DeepEqual(cfg, Defaults()) {
		t.Errorf("missing file: %+v, %v; want defaults and no error", cfg, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("scrollback = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(); err != nil || cfg.Scrollback != 5 {
		t.Errorf("got %+v, %v", cfg, err)
	}
	if err := os.WriteFile(p, []byte("scrollback = 5\nnope = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), p+":2: nope") {
		t.Errorf("error %v should name %s:2 and the key", err, p)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/dir") // not absolute: ignored per the XDG spec
	t.Setenv("HOME", dir)
	if p, _ := Path(); p != filepath.Join(dir, ".config", "melmux", "config.toml") {
		t.Errorf("relative XDG_CONFIG_HOME: Path %q", p)
	}
}

func TestKeyLines(t *testing.T) {
	data := "a = 1\n[t]\n\"x.y\" = 2\nb.c = 3\ns = '''\nfake = 1\n'''\nd = 4\n"
	got := keyLines([]byte(data))
	want := map[string]int{"a": 1, "t": 2, `t."x.y"`: 3, "t.b.c": 4, "t.s": 5, "t.d": 8}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestAgentTable(t *testing.T) {
	cfg, err := Parse([]byte("[agent]\nprovider = \"OpenAI\"\nmodel = \"qwen3\"\nbase_url = \"http://localhost:11434/v1\"\napi_key_env = \"MY_KEY\"\nmax_legs = 20\nread_wait = \"30s\"\nworktrees = true\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := Agent{Provider: "openai", Model: "qwen3", BaseURL: "http://localhost:11434/v1", KeyEnv: "MY_KEY", MaxLegs: 20, ReadWait: 30 * time.Second, Worktrees: true}
	if cfg.Agent != want {
		t.Fatalf("agent = %+v, want %+v", cfg.Agent, want)
	}
	if d := Defaults().Agent; d.MaxLegs != DefaultMaxLegs || d.ReadWait != DefaultReadWait {
		t.Fatalf("defaults = %+v", d)
	}
}

func TestAgentTableErrors(t *testing.T) {
	src := "[agent]\nprovider = \"gpt\"\nbase_url = \"localhost\"\napi_key_env = \"sk-abc def\"\nmax_legs = 0\nread_wait = \"soon\"\ncolour = 1\nworktrees = \"yes\"\n"
	_, err := Parse([]byte(src), "c.toml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`c.toml:2: agent.provider: "gpt" is not a provider (providers: relay, openai, anthropic)`,
		`c.toml:3: agent.base_url: "localhost" is not an http:// or https:// URL`,
		`c.toml:4: agent.api_key_env: "sk-abc def" must be the name of an environment variable`,
		`c.toml:5: agent.max_legs: 0 is out of range (1 to 10000)`,
		`c.toml:6: agent.read_wait: "soon" must be a duration`,
		`c.toml:7: agent.colour: unknown key (known: provider, model, base_url, api_key_env, max_legs, read_wait, worktrees, max_calls, max_leg_time, max_reply_bytes, max_args_bytes, spawn_hosts)`,
		`c.toml:8: agent.worktrees: must be true or false, not a string`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// One bad entry leaves out that entry only: the [agent] table and the
// prefix of a file with a bad binding still apply, and a bad key of
// [agent] leaves out that key, not the table (a dropped table once moved
// the agent to another provider without a word).
func TestParseKeepsTheGoodEntries(t *testing.T) {
	data := `prefix = "C-a"
scrollback = "lots"

[status]
bg = "blue"
fg = "blurple"

[bindings]
"|" = "split-right"
q = "quit-everything"

[agent]
provider = "anthropic"
model = "claude-sonnet-4-5"
max_legs = 0
read_wait = "30s"

[prices]
"m1" = { input = 1, output = 2 }
"m2" = { input = -1, output = 2 }

[agents]
bell = false
osc9 = "no"

[agents.kinds.mine]
programs = ["mine"]

[agents.kinds.broken]
banner = "("

[[agents.rules]]
name = "mine.ask"
kind = "mine"
state = "waiting"
region = "bottom"
match = "Proceed\\?"

[[agents.rules]]
name = "mine.bad"
kind = "mine"
state = "asking"
region = "bottom"
match = "x"

[[agents.rules]]
name = "broken.idle"
kind = "broken"
state = "idle"
region = "bottom"
match = "x"

[[agents.rules]]
name = "mine.lines"
kind = "mine"
state = "idle"
region = "bottom"
lines = "many"
match = "y"
`
	cfg, err := Parse([]byte(data), "c.toml")
	if err == nil || errors.Is(err, ErrSyntax) {
		t.Fatalf("error %v, want the bad entries' problems", err)
	}
	for _, w := range []string{
		"c.toml:2: scrollback: must be a whole number",
		`c.toml:6: status.fg: colour "blurple" not understood`,
		`c.toml:10: bindings.q: bad command "quit-everything"`,
		"c.toml:15: agent.max_legs: 0 is out of range",
		"c.toml:20: prices.m2:",
		"c.toml:24: agents.osc9: must be true or false",
		`c.toml:30: agents.kinds.broken.banner: "(" is not a valid RE2 pattern`,
		`c.toml:42: agents.rules.1.state: "asking" is not waiting, working or idle`,
		`c.toml:48: agents.rules.2.kind: "broken" is not a kind`,
		"c.toml:58: agents.rules.3.lines: must be a whole number of rows",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	if n := len(Problems(err)); n != 10 {
		t.Errorf("%d problems, want 10:\n%v", n, err)
	}
	want := Defaults()
	want.Prefix = "C-a"
	want.Status.BG = term.Indexed(4)
	want.Bindings = map[string]string{"|": "split-right"}
	want.Agent.Provider, want.Agent.Model, want.Agent.ReadWait = "anthropic", "claude-sonnet-4-5", 30*time.Second
	want.Prices = map[string]Price{"m1": {Input: 1, Output: 2}}
	want.Agents.Bell = false
	got := cfg
	got.Agents.Rules = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	r := cfg.Agents.Rules
	if r == nil || !slices.Contains(r.Kinds(), "mine") || slices.Contains(r.Kinds(), "broken") {
		t.Fatalf("kinds %v: want mine and not broken", r.Kinds())
	}
	names := r.RuleNames()
	if !slices.Contains(names, "mine.ask") || slices.Contains(names, "mine.bad") || slices.Contains(names, "broken.idle") || slices.Contains(names, "mine.lines") {
		t.Errorf("rules %v: want mine.ask and none of the bad ones", names)
	}
	if len(names) <= 1 {
		t.Errorf("rules %v: the built-in rules are gone", names)
	}
}

// Problems lists what an error of Parse joins, each with its line; the
// error of a file that cannot be read has none.
func TestProblems(t *testing.T) {
	_, err := Parse([]byte("a = 1\n\nb = 2\n"), "c.toml")
	ps := Problems(err)
	if len(ps) != 2 || ps[0].Line != 1 || ps[0].Key != "a" || ps[1].Line != 3 || ps[1].Key != "b" {
		t.Errorf("problems %+v of %v", ps, err)
	}
	_, err = Parse([]byte("a = = 1\n"), "c.toml")
	if ps := Problems(err); len(ps) != 1 || !ps[0].Syntax || ps[0].Line != 1 {
		t.Errorf("syntax: problems %+v of %v", ps, err)
	}
	if ps := Problems(errors.New("config: permission denied")); ps != nil {
		t.Errorf("an unreadable file: problems %+v", ps)
	}
}
