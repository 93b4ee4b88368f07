// Package melmux_test holds repository-wide checks. This one keeps the import
// direction of docs/architecture.md true: a package may not reach, directly or
// through others, what the table forbids it.
package melmux_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/melmux/melmux/"

// forbidden maps a package (and its sub-packages) to the packages it must not
// depend on. "*" in a value means any third-party or project package; a
// value ending in "=" names that package alone, not its sub-packages.
var forbidden = map[string][]string{
	"layout":                {"github.com/gdamore/tcell", mod + "pane", mod + "internal", "os/exec", "net"},
	"pane":                  {mod + "layout", "github.com/gdamore/tcell", mod + "internal"},
	"internal/proto":        {"*"},
	"internal/server":       {mod + "orchestrator", mod + "toolexec"},
	"internal/ui":           {mod + "internal/server", mod + "layout", mod + "pane/keys", mod + "internal/client"},
	"internal/client":       {mod + "internal/server", mod + "pane"},
	"toolexec":              {mod + "internal/server", mod + "pane", mod + "orchestrator", mod + "layout"},
	"orchestrator":          {mod + "internal/server", mod + "pane", "github.com/gdamore/tcell", mod + "internal/client"},
	"internal/mcpserver":    {mod + "internal/server", mod + "pane"},
	"internal/sessionstate": {mod + "internal/server", "github.com/gdamore/tcell"},
	"internal/procstat":     {"*"},
	"internal/audit":        {"*"},
	"internal/transcript":   {"*"},
	"internal/cli":          {mod + "toolexec", mod + "orchestrator", mod + "internal/mcpserver", mod + "internal/server", mod + "pane"},
	"worktree":              {"*"},
	"internal/testreq":      {"*"},
	// The web server gets a pane's rows encoded by the session: it links
	// neither the emulator nor the session (melmux-web is its own process).
	"internal/web": {mod + "internal/server", mod + "internal/ui", mod + "internal/client", mod + "toolexec", mod + "orchestrator",
		"github.com/gdamore/tcell", mod + "pane", mod + "layout", "github.com/hinshun/vt10x"},
	// The wire between the session and melmux-web: both link it.
	"internal/webwire":  {mod + "internal/server", mod + "internal/web", mod + "pane", "net/http", "crypto/tls", "github.com/coder/websocket"},
	"internal/webtoken": {"*"},
	"internal/remote":   {mod + "internal/server", mod + "pane", mod + "layout", mod + "internal/ui", "github.com/gdamore/tcell"},
	// melmux-agent reads the config for [agent]: it must not bring the UI,
	// tcell's terminfo tables or the emulator with it.
	"internal/config":          {mod + "internal/server", mod + "internal/ui", mod + "pane/term=", "github.com/gdamore/tcell", "github.com/hinshun/vt10x"},
	"internal/config/agentcfg": {"*"},
	"internal/uiconf":          {mod + "internal", mod + "pane=", mod + "pane/term=", mod + "layout", "github.com/gdamore/tcell", "github.com/hinshun/vt10x"},
	"pane/term/color":          {"*"},
	"internal/filekind":        {"*"},
	// Editing the agent CLIs' settings files: their JSON and TOML, nothing
	// of the session's.
	"internal/agenthooks": {mod + "internal/server", mod + "internal/ui", mod + "internal/client", mod + "pane", mod + "layout",
		"github.com/gdamore/tcell", "github.com/hinshun/vt10x", "net"},
	// The scheduling for a person's keys calls nothing of the server's: any
	// of the server's locks may be held when it is called.
	"internal/server/sched": {"*"},
}

// forbiddenImports is forbidden for a package's own imports only, where
// what it may not import itself is still reached through a package it
// uses: toolexec takes a limit from internal/proto, but the agent loop must
// not know the session's wire (internal/agentverbs binds it to the session).
var forbiddenImports = map[string][]string{
	"orchestrator": {mod + "internal/proto"},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(p.ImportPath, mod)
		for owner, bans := range forbiddenImports {
			if rel != owner && !strings.HasPrefix(rel, owner+"/") {
				continue
			}
			checked++
			for _, im := range p.Imports {
				for _, ban := range bans {
					if linksAs(im, ban) {
						t.Errorf("%s imports %s, which docs/architecture.md forbids", p.ImportPath, im)
					}
				}
			}
		}
		for owner, bans := range forbidden {
			if rel != owner && !strings.HasPrefix(rel, owner+"/") {
				continue
			}
			checked++
			for _, dep := range p.Deps {
				for _, ban := range bans {
					if ban == "*" {
						if strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") {
							t.Errorf("%s imports %s: it may use the standard library only", p.ImportPath, dep)
						}
						continue
					}
					if linksAs(dep, ban) || (strings.HasSuffix(ban, "tcell") && strings.HasPrefix(dep, ban)) {
						t.Errorf("%s depends on %s, which docs/architecture.md forbids", p.ImportPath, dep)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package matched the rules: the module path or layout changed")
	}
}

// agentOnly are the packages only melmux-agent may link: their package
// inits and pages would otherwise be paid by every melmux process, the
// session's server included (docs/benchmarks.md, "Session start and an idle
// server").
var agentOnly = []string{
	mod + "toolexec", mod + "orchestrator", mod + "internal/mcpserver", mod + "internal/agentverbs",
	"github.com/yuin/goldmark", "modernc.org/", "github.com/google/jsonschema-go",
	"github.com/modelcontextprotocol/go-sdk", "github.com/go-pdf/fpdf", "encoding/gob",
}

func TestMelmuxLeavesTheAgentVerbsToMelmuxAgent(t *testing.T) {
	leavesTo(t, "./cmd/melmux", "./cmd/melmux-agent", "the verbs agent, tool, tools, mcp", "agentOnly", agentOnly)
}

// The daemon has no use for the agent's packages; it runs the agents'
// verbs as melmux (Config.Self) and so melmux-agent.
func TestMelmuxServerLeavesTheAgentVerbsToMelmuxAgent(t *testing.T) {
	leavesTo(t, "./cmd/melmux-server", "./cmd/melmux-agent", "the verbs agent, tool, tools, mcp", "agentOnly", agentOnly)
}

// leavesTo checks that binary links none of bans, which its companion
// binary (holding what) does link.
func leavesTo(t *testing.T, binary, companion, what, listName string, bans []string) {
	t.Helper()
	own, other := listDeps(t, binary), listDeps(t, companion)
	for _, ban := range bans {
		for _, dep := range own {
			if linksAs(dep, ban) {
				t.Errorf("%s links %s: it belongs to %s (%s)", strings.TrimPrefix(binary, "./"), dep, strings.TrimPrefix(companion, "./"), what)
			}
		}
		// The check means something only while the companion links it.
		if !slices.ContainsFunc(other, func(dep string) bool { return linksAs(dep, ban) }) {
			t.Errorf("%s does not link %s: the list %s is stale", strings.TrimPrefix(companion, "./"), ban, listName)
		}
	}
}

// serverOnly are the packages of the session daemon, which melmux leaves to
// melmux-server: every melmux process would otherwise pay their package
// inits and page faults, about 0.6 ms a start (docs/benchmarks.md, "Session
// start and an idle server"). "=" ends a package whose sub-packages are not
// banned (pane/agentstate is the CLI's).
var serverOnly = []string{
	mod + "internal/server", mod + "internal/serveverb", mod + "internal/ui", mod + "internal/config",
	mod + "pane=", mod + "pane/term", mod + "layout", "github.com/gdamore/tcell/", "github.com/gdamore/encoding",
	"github.com/hinshun/vt10x", "github.com/BurntSushi/toml", "runtime/metrics",
}

func TestMelmuxLeavesTheDaemonToMelmuxServer(t *testing.T) {
	leavesTo(t, "./cmd/melmux", "./cmd/melmux-server", "the session daemon, __serve", "serverOnly", serverOnly)
}

// screenOnly are the daemon's packages that melmux-agent must not link
// either: the UI, tcell with its terminfo tables, the emulator and vt10x,
// the session itself. It reads the config file (internal/config, the TOML
// parser) for its [agent] table, and so the UI's notation in it
// (internal/uiconf), but nothing that draws or runs a pane.
var screenOnly = []string{
	mod + "internal/server", mod + "internal/serveverb", mod + "internal/ui", mod + "pane=", mod + "pane/term=",
	mod + "layout", "github.com/gdamore/tcell/", "github.com/gdamore/encoding", "github.com/hinshun/vt10x",
	"runtime/metrics",
}

func TestMelmuxAgentLeavesTheScreenToMelmuxServer(t *testing.T) {
	leavesTo(t, "./cmd/melmux-agent", "./cmd/melmux-server", "the session daemon, __serve", "screenOnly", screenOnly)
}

// webOnly are the web server's packages, which melmux-web alone links: the
// HTTP server, TLS and its certificates, the WebSocket library. An idle
// session's server paid 2.1 MiB of pages for their package inits when it
// linked them (docs/benchmarks.md, "Session start and an idle server"),
// and every CLI call would pay their inits.
var webOnly = []string{
	mod + "internal/web", "github.com/coder/websocket", "net/http", "crypto/tls", "crypto/x509",
}

func TestMelmuxServerLeavesTheWebToMelmuxWeb(t *testing.T) {
	leavesTo(t, "./cmd/melmux-server", "./cmd/melmux-web", "the web server of `melmux web`", "webOnly", webOnly)
}

func TestMelmuxLeavesTheWebToMelmuxWeb(t *testing.T) {
	leavesTo(t, "./cmd/melmux", "./cmd/melmux-web", "the web server of `melmux web`", "webOnly", webOnly)
}

// webPage is what of the web melmux-agent must not link either; it needs
// net/http and TLS itself, for the models' APIs.
var webPage = []string{mod + "internal/web", "github.com/coder/websocket"}

func TestMelmuxAgentLeavesTheWebToMelmuxWeb(t *testing.T) {
	leavesTo(t, "./cmd/melmux-agent", "./cmd/melmux-web", "the web server of `melmux web`", "webPage", webPage)
}

// melmux-web links none of the session (the server, the emulator, the UI,
// tcell) nor the agent's packages: it serves what the session sends it.
func TestMelmuxWebLeavesTheSessionToMelmuxServer(t *testing.T) {
	leavesTo(t, "./cmd/melmux-web", "./cmd/melmux-server", "the session daemon, __serve", "screenOnly", screenOnly)
	leavesTo(t, "./cmd/melmux-web", "./cmd/melmux-agent", "the verbs agent, tool, tools, mcp", "agentOnly", agentOnly)
}

// linksAs says dep is the package ban names, or one under it; a ban ending
// in "/" names a module path prefix (modernc.org/), one ending in "=" the
// package alone.
func linksAs(dep, ban string) bool {
	if strings.HasSuffix(ban, "/") {
		return strings.HasPrefix(dep, ban)
	}
	if p, ok := strings.CutSuffix(ban, "="); ok {
		return dep == p
	}
	return dep == ban || strings.HasPrefix(dep, ban+"/")
}

func listDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatalf("go list -deps %s listed nothing", pkg)
	}
	return deps
}
