package remote

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/internal/proto"
)

// A lead's workers spread over two hosts at once: [agent] spawn_hosts
// lists h1 and h2, one agent each, so the first spawn_agent goes to h1 and
// the second to h2; each answers its task from its own host. With h1's link
// cut, h1 shows disconnected while h2's worker still takes a turn: one
// host's link holds up no other's.
func TestTwoHosts(t *testing.T) {
	h1 := newSSHHostNamed(t, "h1")
	h2 := newSSHHostNamed(t, "h2")
	model := modeltest.New(t, modeltest.Relay, []modeltest.Leg{
		{Expect: []string{"first worker's task"}, Text: "done on one host"},
		{Expect: []string{"second worker's task"}, Text: "done on the other"},
		{Expect: []string{"with h1 cut off"}, Text: "still here"},
	})
	u, err := url.Parse(model.URL())
	if err != nil {
		t.Fatal(err)
	}
	// The model is served on h2's link; h1 reaches it through its own
	// link (a route there), so that cutting h1 leaves h2's way whole.
	addr, callers := h2.reachable(u.Host)
	h1.must("nsenter", "-t", fmt.Sprint(h1.netns.Process.Pid), "-n", "ip", "route", "add", h2.local+"/32", "via", h1.local)

	// One ssh config that knows both aliases.
	var both strings.Builder
	for _, h := range []*sshHost{h1, h2} {
		b, err := os.ReadFile(h.config)
		if err != nil {
			t.Fatal(err)
		}
		both.Write(b)
	}
	config := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(config, []byte(both.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	l := newLocalSessionOf(t, &sshHost{config: config}, binaries(t))
	l.env = append(l.env, "MELMUX_AGENT_PROVIDER=relay", "MELMUX_RELAY_URL=http://"+addr+"/relay", "MELMUX_RELAY_TOKEN="+modeltest.Key)
	home := envOf(l.env, "XDG_CONFIG_HOME")
	if err := os.MkdirAll(filepath.Join(home, "melmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := "[agent]\nspawn_hosts = [\"h1\", \"h2\"]\n\n[hosts.h1]\nmax_agents = 1\n\n[hosts.h2]\nmax_agents = 1\n"
	if err := os.WriteFile(filepath.Join(home, "melmux", "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}

	// workerOn is the pane id of the one worker on host.
	workerOn := func(host string) string {
		t.Helper()
		var panes []proto.PaneInfo
		out := l.must("list-panes", "--json")
		if err := json.Unmarshal([]byte(out), &panes); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range panes {
			if p.Host != nil && *p.Host == host && p.Agent != nil && p.Agent.Role == "worker" {
				ids = append(ids, fmt.Sprint(p.ID))
			}
		}
		if len(ids) != 1 {
			t.Fatalf("workers on %s: %v, want one; list-panes:\n%s", host, ids, out)
		}
		return ids[0]
	}

	// Each worker's turn is read before the next is spawned: the model's
	// script answers in order.
	out := l.must("tool", "spawn_agent", `{"layout": "tab", "task": "first worker's task"}`)
	if !strings.Contains(out, "on host h1") {
		t.Fatalf("the first worker (no agents anywhere: the first host listed):\n%s", out)
	}
	w1 := workerOn("h1")
	if r := l.readAgent(w1); !r.TurnDone || r.Reply != "done on one host" {
		t.Fatalf("read-agent of h1's worker: %+v", r)
	}
	out = l.must("tool", "spawn_agent", `{"layout": "tab", "task": "second worker's task"}`)
	if !strings.Contains(out, "on host h2") {
		t.Fatalf("the second worker (h1 full):\n%s", out)
	}
	w2 := workerOn("h2")
	if w1 == w2 {
		t.Fatalf("one pane %s for both workers", w1)
	}
	if r := l.readAgent(w2); !r.TurnDone || r.Reply != "done on the other" {
		t.Fatalf("read-agent of h2's worker: %+v", r)
	}
	if w := workerOn("h1"); w != w1 {
		t.Fatalf("h1's worker is now %s, was %s", w, w1)
	}
	from := map[string]bool{}
	for _, c := range callers() {
		from[strings.Split(c, ":")[0]] = true
	}
	if !from[h1.addr] || !from[h2.addr] {
		t.Fatalf("the model was called from %v, want both hosts %s and %s", from, h1.addr, h2.addr)
	}

	h1.must("ip", "link", "set", h1.veth, "down")
	eventually(t, "hosts saying h1 is disconnected", time.Minute, func() bool { return l.hostState("h1") == proto.LinkDisconnected })
	l.must("send-agent", "-t", w2, "a turn with h1 cut off")
	if r := l.readAgent(w2); !r.TurnDone || r.Agent == nil || r.Agent.Turn != 2 || r.Reply != "still here" {
		t.Fatalf("h2's worker with h1 cut off: %+v", r)
	}
	if s := l.hostState("h1"); s != proto.LinkDisconnected {
		t.Fatalf("h1 after h2's turn: %s, want %s", s, proto.LinkDisconnected)
	}
	if s := l.hostState("h2"); s != proto.LinkConnected {
		t.Fatalf("h2 with h1 cut off: %s, want %s", s, proto.LinkConnected)
	}
}
