package server

import (
	"math"
	"testing"

	"github.com/google/uuid"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
)

func TestListPanesResources(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	call(t, c, "new", proto.NewParams{Command: []string{"sh", "-c", "while :; do :; done"}}, nil)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "right", Command: "sleep 600", NoWait: true}, nil)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "right", Argv: []string{"sh", "-c", "exit 3"}, Target: 2, NoWait: true}, nil)
	call(t, c, "wait", proto.WaitParams{Pane: 3, Exit: true}, nil)

	var plain []proto.PaneInfo
	call(t, c, "list_panes", nil, &plain)
	for _, p := range plain {
		if p.CPU != nil || p.RSS != nil {
			t.Fatalf("list_panes without resources read /proc: %+v", p)
		}
	}
	var rows []proto.PaneInfo
	call(t, c, "list_panes", proto.ListPanesParams{Resources: true}, &rows)
	if len(rows) != 3 {
		t.Fatalf("rows: %+v", rows)
	}
	for _, p := range rows {
		if p.CPU == nil || p.RSS == nil {
			t.Fatalf("pane %d has no cpu or rss: %+v", p.ID, p)
		}
	}
	busy, idle, gone := rows[0], rows[1], rows[2]
	if *busy.CPU <= 0 || *busy.RSS <= 0 || *idle.RSS <= 0 {
		t.Errorf("a busy loop uses %v%% and %d bytes, a sleep %d bytes", *busy.CPU, *busy.RSS, *idle.RSS)
	}
	if *gone.CPU != 0 || *gone.RSS != 0 {
		t.Errorf("an exited pane uses nothing: %v%%, %d bytes", *gone.CPU, *gone.RSS)
	}
	t.Logf("busy loop %.1f%% of a core, %d bytes; sleep %.1f%%, %d bytes", *busy.CPU, *busy.RSS, *idle.CPU, *idle.RSS)

	// Within a second the sample answers again: /proc is not read twice.
	s.res.mu.Lock()
	at := s.res.at
	s.res.mu.Unlock()
	var again []proto.PaneInfo
	call(t, c, "list_panes", proto.ListPanesParams{Resources: true}, &again)
	s.res.mu.Lock()
	same := s.res.at.Equal(at)
	s.res.mu.Unlock()
	if !same || *again[0].CPU != *busy.CPU {
		t.Errorf("a second ask within a second sampled again (%v then %v)", *busy.CPU, *again[0].CPU)
	}
}

func TestAgentCost(t *testing.T) {
	t.Parallel()
	s, c := startServer(t, func(cfg *Config) {
		cfg.Prices = map[string]config.Price{"m1": {Input: 2, Output: 8}}
	})
	call(t, c, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "right", Command: "sleep 601", NoWait: true}, nil)
	a := registerAgent(t, s, 1, "lead", "")
	a.report("idle", 0, "", 1000) // 100k tokens in, 10k out
	var rows []proto.PaneInfo
	call(t, c, "list_panes", nil, &rows)
	ag := rows[0].Agent
	if ag == nil || ag.Cost == nil || math.Abs(*ag.Cost-(0.1*2+0.01*8)) > 1e-9 {
		t.Fatalf("the agent's cost: %+v", ag)
	}
	// A model with no price has no cost.
	other, err := mxclient.Dial(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	call(t, other, "agent_register", proto.AgentRegisterParams{Pane: 2, ID: uuid.NewString(), Role: "worker", Model: "unpriced"}, nil)
	var fresh []proto.PaneInfo
	call(t, c, "list_panes", nil, &fresh)
	if fresh[1].Agent == nil || fresh[1].Agent.Cost != nil {
		t.Errorf("a model with no price: %+v", fresh[1].Agent)
	}
}
