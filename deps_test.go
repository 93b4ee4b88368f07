// Package melmux_test holds repository-wide checks. This one keeps the import
// direction of docs/architecture.md true: a package may not reach, directly or
// through others, what the table forbids it.
package melmux_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/melmux/melmux/"

// forbidden maps a package (and its sub-packages) to the packages it must not
// depend on. "*" in a value means any third-party or project package.
var forbidden = map[string][]string{
	"layout":                {"github.com/gdamore/tcell", mod + "pane", mod + "internal", "os/exec", "net"},
	"pane":                  {mod + "layout", "github.com/gdamore/tcell", mod + "internal"},
	"internal/proto":        {"*"},
	"internal/server":       {mod + "orchestrator", mod + "toolexec"},
	"internal/ui":           {mod + "internal/server", mod + "layout", mod + "pane/keys", mod + "internal/client"},
	"internal/client":       {mod + "internal/server", mod + "pane"},
	"toolexec":              {mod + "internal/server", mod + "pane", mod + "orchestrator", mod + "layout"},
	"orchestrator":          {mod + "internal/server", mod + "pane", "github.com/gdamore/tcell"},
	"internal/mcpserver":    {mod + "internal/server", mod + "pane"},
	"internal/sessionstate": {mod + "internal/server", "github.com/gdamore/tcell"},
	"internal/procstat":     {"*"},
	"worktree":              {"*"},
}

type pkg struct {
	ImportPath string
	Deps       []string
	Standard   bool
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Deps", "./...").Output()
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
					if dep == ban || strings.HasPrefix(dep, ban+"/") || (strings.HasSuffix(ban, "tcell") && strings.HasPrefix(dep, ban)) {
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
