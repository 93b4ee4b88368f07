package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/melmux/melmux/internal/config/agentcfg"
	"github.com/melmux/melmux/internal/uiconf"
	"github.com/melmux/melmux/pane/term/color"
)

// Limits on scrollback lines per pane.
const (
	DefaultScrollback = 10000
	MaxScrollback     = 1000000
)

// Limits on clients attached to one session at once: each costs memory in
// proportion to its screen, so a session refuses clients beyond the limit.
const (
	DefaultMaxClients = 16
	MaxMaxClients     = 1000
)

// ErrInvalid is wrapped by every error about the file's contents, so callers
// can tell a bad file (use what is good in it, show the error) from an
// unreadable one.
var ErrInvalid = errors.New("invalid config")

// ErrSyntax is wrapped, beside ErrInvalid, by the error of a file that is
// not valid TOML: nothing of it can be read, so none of it is used. Every
// other problem leaves out only the entry it names.
var ErrSyntax = errors.New("config does not parse")

// Config is the user's configuration.
type Config struct {
	Prefix     string            // prefix key in uiconf.ParseKey notation
	Bindings   map[string]string // key → command line (uiconf.ParseBinding), over the default table
	Status     uiconf.StatusStyle
	Scrollback int    // history lines kept per pane
	Shell      string // command for new panes; "" means $SHELL, then /bin/sh
	MaxClients int    // terminals attached to a session at once
	// RemainOnExit says which panes stay, showing their last screen, once
	// their program ends: one of RemainAuto (the default), RemainOn,
	// RemainOff.
	RemainOnExit string
	Agent        Agent  // the [agent] table
	Agents       Agents // the [agents] table
	// Prices is the [prices] table: model name → price per million
	// tokens, for what melmux agents cost.
	Prices map[string]Price
	// Hosts is the [hosts] table: the limits of the hosts panes may run
	// on (docs/remote.md), by name.
	Hosts map[string]Host
	// SpawnHosts is [agent] spawn_hosts: the hosts a lead's spawn_agent,
	// and its open_pane of an agent CLI, are placed on ("local" for this
	// machine), the one with the fewest agents running that has room
	// under its [hosts] limit. None places everything here. It is not in
	// Agent, which the orchestrator takes: placement is the session's.
	SpawnHosts []string
}

// The values of remain_on_exit. Under RemainAuto a pane started with no
// command (the default shell) closes when its program exits with status 0;
// every other pane stays until it is killed, so its end can still be read.
// RemainOn keeps every pane, RemainOff closes every pane, as tmux's option.
const (
	RemainAuto = "auto"
	RemainOn   = "on"
	RemainOff  = "off"
)

// Agent is the [agent] table: the Mel agent's model settings (flags and
// environment variables override them) and its limits. It is defined in
// agentcfg so the orchestrator can take it without the config file's
// parser and its other tables.
type Agent = agentcfg.Agent

// Defaults of the [agent] table.
const (
	DefaultMaxLegs  = 50
	DefaultReadWait = 2 * time.Minute
)

// AgentProviders are the values [agent] provider takes.
var AgentProviders = []string{"relay", "openai", "anthropic"}

// Defaults is the configuration without a file.
func Defaults() Config {
	return Config{
		Prefix:       uiconf.DefaultPrefix,
		Bindings:     map[string]string{},
		Status:       uiconf.DefaultStatusStyle(),
		Scrollback:   DefaultScrollback,
		MaxClients:   DefaultMaxClients,
		RemainOnExit: RemainAuto,
		Agent:        Agent{MaxLegs: DefaultMaxLegs, ReadWait: DefaultReadWait},
		Prices:       map[string]Price{},
		Hosts:        map[string]Host{},
		Agents:       defaultAgents(),
	}
}

// Problem is one thing wrong in the file, at a line (0 when unknown) and key.
type Problem struct {
	File string
	Line int
	Key  string
	Msg  string
	// Syntax: the file is not valid TOML (ErrSyntax).
	Syntax bool
}

func (p *Problem) Error() string {
	loc := p.File
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
	}
	if p.Key != "" {
		return fmt.Sprintf("%s: %s: %s", loc, p.Key, p.Msg)
	}
	return loc + ": " + p.Msg
}

// Unwrap lets errors.Is(err, ErrInvalid) hold, and ErrSyntax for a file
// that does not parse.
func (p *Problem) Unwrap() []error {
	if p.Syntax {
		return []error{ErrInvalid, ErrSyntax}
	}
	return []error{ErrInvalid}
}

// Problems lists the problems an error of Parse, Load or LoadFile joins, in
// the order of the file's lines; nil for an error that is not about the
// file's contents (one that could not be read).
func Problems(err error) []*Problem {
	if p, ok := err.(*Problem); ok {
		return []*Problem{p}
	}
	var out []*Problem
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if p, ok := e.(*Problem); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// Effect says, for a message, what becomes of a file that loaded with err:
// none of it is used when it does not parse, else the entries named are
// left out and the rest applies. instead is what applies in the first case
// ("the defaults", "the session's config as it was").
func Effect(err error, instead string) string {
	if errors.Is(err, ErrSyntax) {
		return "the file does not parse as TOML, so none of it is used; instead: " + instead
	}
	return "those entries are left out; the rest of the file applies"
}

// Path returns where the config file lives.
func Path() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("config: no $XDG_CONFIG_HOME and no home directory: %w", err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "melmux", "config.toml"), nil
}

// Load reads the config file from Path. A missing file gives Defaults() and
// no error; a file that cannot be read gives Defaults() and the error; a
// file with problems gives what Parse gives.
func Load() (Config, error) {
	p, err := Path()
	if err != nil {
		return Defaults(), err
	}
	return LoadFile(p)
}

// LoadFile reads the config at path like Load.
func LoadFile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Defaults(), nil
	}
	if err != nil {
		return Defaults(), fmt.Errorf("config: %w", err)
	}
	return Parse(data, path)
}

// statusKeys maps [status] keys to the colour they set.
var statusKeys = map[string]func(*uiconf.StatusStyle) *color.Color{
	"fg":        func(s *uiconf.StatusStyle) *color.Color { return &s.FG },
	"bg":        func(s *uiconf.StatusStyle) *color.Color { return &s.BG },
	"active_fg": func(s *uiconf.StatusStyle) *color.Color { return &s.ActiveFG },
	"active_bg": func(s *uiconf.StatusStyle) *color.Color { return &s.ActiveBG },
	"attention": func(s *uiconf.StatusStyle) *color.Color { return &s.Attention },
	"border":    func(s *uiconf.StatusStyle) *color.Color { return &s.Border },
	"focus":     func(s *uiconf.StatusStyle) *color.Color { return &s.Focus },
}

const statusKeyList = "fg, bg, active_fg, active_bg, attention, border, focus"

// Parse reads config data; name is used in error messages. A problem with
// an entry (an unknown key, a value of the wrong type or out of range)
// leaves out that entry only: the config returned holds every other entry
// of the file over Defaults(), and the error joins a *Problem for each
// entry left out, with its line and key. Data that is not valid TOML gives
// Defaults() and one Problem wrapping ErrSyntax.
//
// The document is decoded into plain maps and checked here rather than
// decoded into a struct, so that a wrong type, an unknown key and a bad value
// are all reported the same way, each with its line.
func Parse(data []byte, name string) (Config, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return Defaults(), &Problem{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: "not valid TOML: " + pe.Message, Syntax: true}
		}
		return Defaults(), &Problem{File: name, Msg: "not valid TOML: " + err.Error(), Syntax: true}
	}
	lines := keyLines(data)
	var probs []error
	bad := func(key []string, format string, args ...any) {
		k := toml.Key(key).String()
		// A key that is missing is reported at its table.
		line := 0
		for n := len(key); n > 0 && line == 0; n-- {
			line = lines[toml.Key(key[:n]).String()]
		}
		probs = append(probs, &Problem{File: name, Line: line, Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	str := func(key []string, v any) (string, bool) {
		s, ok := v.(string)
		if !ok {
			bad(key, "must be a string, not %s", tomlType(v))
		}
		return s, ok
	}
	table := func(key []string, v any) (map[string]any, bool) {
		m, ok := v.(map[string]any)
		if !ok {
			bad(key, "must be a table ([%s]), not %s", key[0], tomlType(v))
		}
		return m, ok
	}
	cfg := Defaults()
	for k, v := range raw {
		key := []string{k}
		switch k {
		case "prefix":
			if s, ok := str(key, v); ok {
				if _, err := uiconf.ParseKey(s); err != nil {
					bad(key, "%v", err)
				} else {
					cfg.Prefix = s
				}
			}
		case "shell":
			if s, ok := str(key, v); ok {
				switch sh := strings.TrimSpace(s); {
				case sh == "":
					bad(key, "empty; leave it out to use $SHELL")
				case strings.Contains(sh, "/") && !filepath.IsAbs(sh):
					bad(key, "%q must be an absolute path or a command name", sh)
				default:
					cfg.Shell = sh
				}
			}
		case "scrollback":
			n, ok := v.(int64)
			switch {
			case !ok:
				bad(key, "must be a whole number of lines, not %s", tomlType(v))
			case n < 0 || n > MaxScrollback:
				bad(key, "%d lines is out of range (0 to %d)", n, MaxScrollback)
			default:
				cfg.Scrollback = int(n)
			}
		case "max_clients":
			n, ok := v.(int64)
			switch {
			case !ok:
				bad(key, "must be a whole number of clients, not %s", tomlType(v))
			case n < 1 || n > MaxMaxClients:
				bad(key, "%d clients is out of range (1 to %d)", n, MaxMaxClients)
			default:
				cfg.MaxClients = int(n)
			}
		case "remain_on_exit":
			if s, ok := str(key, v); ok {
				switch s {
				case RemainAuto, RemainOn, RemainOff:
					cfg.RemainOnExit = s
				default:
					bad(key, "%q is not auto, on or off", s)
				}
			}
		case "status":
			m, ok := table(key, v)
			if !ok {
				continue
			}
			for sk, sv := range m {
				skey := []string{k, sk}
				field, known := statusKeys[sk]
				if !known {
					bad(skey, "unknown status colour (known: %s)", statusKeyList)
					continue
				}
				s, ok := str(skey, sv)
				if !ok {
					continue
				}
				c, err := uiconf.ParseColor(s)
				if err != nil {
					bad(skey, "%v", err)
					continue
				}
				*field(&cfg.Status) = c
			}
		case "bindings":
			m, ok := table(key, v)
			if !ok {
				continue
			}
			for bk, bv := range m {
				bkey := []string{k, bk}
				s, ok := str(bkey, bv)
				if !ok {
					continue
				}
				if _, err := uiconf.ParseKey(bk); err != nil {
					bad(bkey, "%v", err)
					continue
				}
				if _, err := uiconf.ParseBinding(s); err != nil {
					bad(bkey, "%v", err)
					continue
				}
				cfg.Bindings[bk] = s
			}
		case "agent":
			m, ok := table(key, v)
			if !ok {
				continue
			}
			if v, ok := m["spawn_hosts"]; ok {
				hosts, msg := parseSpawnHosts(v)
				if msg != "" {
					bad([]string{"agent", "spawn_hosts"}, "%s", msg)
				} else {
					cfg.SpawnHosts = hosts
				}
				m = maps.Clone(m)
				delete(m, "spawn_hosts")
			}
			parseAgent(m, &cfg.Agent, func(k string, format string, args ...any) { bad([]string{"agent", k}, format, args...) })
		case "prices":
			if m, ok := table(key, v); ok {
				parsePrices(m, cfg.Prices, bad)
			}
		case "hosts":
			if m, ok := table(key, v); ok {
				parseHosts(m, cfg.Hosts, bad)
			}
		case "agents":
			m, ok := table(key, v)
			if !ok {
				continue
			}
			parseAgents(m, &cfg.Agents, func(k []string, format string, args ...any) {
				bad(append([]string{"agents"}, k...), format, args...)
			})
		default:
			bad(key, "unknown key (known: prefix, shell, scrollback, max_clients, remain_on_exit, [status] %s, [bindings], [agent], [agents], [prices], [hosts])", statusKeyList)
		}
	}
	if len(probs) > 0 {
		sortProblems(probs)
		return cfg, errors.Join(probs...)
	}
	return cfg, nil
}

// tomlType names a decoded value's TOML type for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// sortProblems orders problems by line so the report reads like the file.
func sortProblems(ps []error) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].(*Problem), ps[j].(*Problem)
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Key < b.Key
	})
}

// keyLines finds the line of every key and table header in a TOML document,
// keyed as toml.Key.String() writes them, because the decoder reports lines
// only for syntax and type errors. It understands [table] headers, bare,
// quoted and dotted keys; multi-line values are skipped over.
func keyLines(data []byte) map[string]int {
	out := map[string]int{}
	var table []string
	arrays := map[string]int{} // [[x]] headers seen, by key: the next element's index
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	inMulti := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if inMulti != "" {
			if strings.Contains(line, inMulti) {
				inMulti = ""
			}
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			h := strings.Trim(line[:strings.LastIndexByte(line, ']')+1], "[]")
			table = splitKey(h)
			if strings.HasPrefix(line, "[[") {
				// An element of an array of tables: its keys are
				// under its index, as agents.rules.2.match.
				k := toml.Key(table).String()
				if _, ok := out[k]; !ok {
					out[k] = n // the array as a whole is at its first element
				}
				table = append(table, strconv.Itoa(arrays[k]))
				arrays[k]++
			}
			if _, ok := out[toml.Key(table).String()]; !ok {
				out[toml.Key(table).String()] = n
			}
			continue
		}
		eq := keyEnd(line)
		if eq < 0 {
			continue
		}
		key := append(append([]string{}, table...), splitKey(line[:eq])...)
		if _, ok := out[toml.Key(key).String()]; !ok {
			out[toml.Key(key).String()] = n
		}
		val := strings.TrimSpace(line[eq+1:])
		for _, q := range []string{`"""`, `'''`} {
			if strings.HasPrefix(val, q) && !strings.Contains(val[3:], q) {
				inMulti = q
			}
		}
	}
	return out
}

// keyEnd returns the index of the '=' ending the key part of a line, skipping
// quoted keys, or -1.
func keyEnd(line string) int {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			return i
		}
	}
	return -1
}

// splitKey splits a dotted key, unquoting quoted parts.
func splitKey(s string) []string {
	var parts []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ' ' || c == '\t':
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}
