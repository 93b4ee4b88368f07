package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/agentcli"
	"github.com/melmux/melmux/internal/testreq"
)

// skipWithout is a script's "[!exec:NAME] skip": testscript skips the
// whole script when NAME is not on PATH, which CI would never see.
var skipWithout = regexp.MustCompile(`(?m)^\s*\[!exec:([^\]\s]+)\]\s+skip\b`)

// TestScriptsHaveWhatTheyNeed holds every program a script skips without
// to testreq: on a developer's machine a missing one is a skip here too
// (and the script skips), under CI's MELMUX_REQUIRE_TOOLS=1 a failure
// naming the scripts that would not have run. The real agents' scripts
// are held to MELMUX_REQUIRE_AGENTS as well, which requires them.
func TestScriptsHaveWhatTheyNeed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts under testdata: %v", err)
	}
	needs := map[string][]string{} // program → scripts
	agents := map[string]bool{}    // programs a real agent's script needs
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Only the script, not the files it carries.
		script, _, _ := strings.Cut(string(data), "\n-- ")
		for _, m := range skipWithout.FindAllStringSubmatch(script, -1) {
			needs[m[1]] = append(needs[m[1]], f)
			if strings.HasPrefix(filepath.Base(filepath.Dir(f)), "real") {
				agents[m[1]] = true
			}
		}
	}
	if len(needs) == 0 {
		t.Fatal("no script skips without a program: the pattern no longer matches how scripts say so")
	}
	names := make([]string, 0, len(needs))
	for name := range needs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var gates []string
			if agents[name] {
				gates = append(gates, agentcli.EnvRequire)
			}
			t.Logf("needed by %s", strings.Join(needs[name], ", "))
			testreq.Tool(t, name, gates...)
		})
	}
}
