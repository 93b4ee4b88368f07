package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/proto"
)

// With panes on other hosts, top's table says where each pane runs and
// totals each host; a remote pane its host could not measure shows "-",
// and is left out of the sums rather than counted as nothing. A session of
// this machine's panes alone keeps the table it always had.
func TestTopTableHosts(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	n := func(v int64) *int64 { return &v }
	h1, h2 := "h1", "me@h2:2222"
	panes := []proto.PaneInfo{
		{ID: 1, Status: "running", Activity: "idle", Command: "sh", CPU: f(1.5), RSS: n(4 << 20), Focused: true},
		{ID: 2, Status: "running", Activity: "busy", Command: "make", Host: &h1, CPU: f(97.5), RSS: n(300 << 20)},
		{ID: 3, Status: "running", Activity: "idle", Command: "sh", Host: &h1, CPU: f(0.5), RSS: n(2 << 20)},
		{ID: 4, Status: "running", Activity: "idle", Command: "claude", Host: &h2},
	}
	got := strings.Join(topTable(panes), "\n")
	for _, want := range []string{
		`(?m)^PANE +TAB +HOST +CPU% +MEM +LEGS +TOKENS IN +OUT +COST +STATE +PROGRAM$`,
		`(?m)^1\* +0 +local +1\.5 +4\.0M +- +- +- +- +idle +sh$`,
		`(?m)^2 +0 +h1 +97\.5 +300M +- +- +- +- +busy +make$`,
		`(?m)^4 +0 +me@h2:2222 +- +- +- +- +- +- +idle +claude$`,
		`(?m)^all +local +1\.5 +4\.0M +0 +0 +0 +- +1 pane$`,
		`(?m)^all +h1 +98\.0 +302M +0 +0 +0 +- +2 panes$`,
		`(?m)^all +me@h2:2222 +- +- +0 +0 +0 +- +1 pane$`,
		`(?m)^all +99\.5 +306M +0 +0 +0 +- +4 panes$`,
	} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("no line matching %s in:\n%s", want, got)
		}
	}

	local := strings.Join(topTable(panes[:1]), "\n")
	if strings.Contains(local, "HOST") || !regexp.MustCompile(`(?m)^all +1\.5 +4\.0M +0 +0 +0 +- +1 pane$`).MatchString(local) {
		t.Errorf("a session of local panes only:\n%s", local)
	}
}
