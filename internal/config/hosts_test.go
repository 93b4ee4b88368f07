package config

import (
	"reflect"
	"strings"
	"testing"
)

// [hosts] and [agent] spawn_hosts: good entries are taken, a bad one is
// left out with a problem naming it and what is allowed, and the rest of
// the file still applies.
func TestHostsAndSpawnHosts(t *testing.T) {
	cfg, err := Parse([]byte(`
[agent]
spawn_hosts = ["local", "build1", "me@10.0.0.7:2222"]

[hosts.build1]
max_agents = 4

[hosts."me@10.0.0.7:2222"]
max_agents = 1

[hosts.local]
max_agents = 2
`), "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"local", "build1", "me@10.0.0.7:2222"}; !reflect.DeepEqual(cfg.SpawnHosts, want) {
		t.Fatalf("spawn_hosts: %q, want %q", cfg.SpawnHosts, want)
	}
	if want := map[string]Host{"build1": {MaxAgents: 4}, "me@10.0.0.7:2222": {MaxAgents: 1}, "local": {MaxAgents: 2}}; !reflect.DeepEqual(cfg.Hosts, want) {
		t.Fatalf("hosts: %+v, want %+v", cfg.Hosts, want)
	}

	for _, c := range []struct{ file, want string }{
		{"[agent]\nspawn_hosts = \"build1\"\n", `agent.spawn_hosts: must be an array of hosts`},
		{"[agent]\nspawn_hosts = [\"local\", 3]\n", `agent.spawn_hosts: entry 2 must be a string`},
		{"[agent]\nspawn_hosts = [\"-oProxyCommand=x\"]\n", `entry 1: "-oProxyCommand=x" is not a host ssh takes: it starts with '-'`},
		{"[agent]\nspawn_hosts = [\"b1\", \"b1\"]\n", `entry 2: "b1" is listed twice`},
		{"[agent]\nspawn_hosts = []\n", `agent.spawn_hosts: is empty`},
		{"[hosts.b1]\nmax_agents = 0\n", `hosts.b1.max_agents: 0 is out of range (1 to 10000`},
		{"[hosts.b1]\nmax_agents = \"4\"\n", `hosts.b1.max_agents: must be a whole number of agents, not a string`},
		{"[hosts.b1]\nmax_panes = 4\n", `hosts.b1.max_panes: unknown key (known: max_agents)`},
		{"[hosts]\nb1 = 4\n", `hosts.b1: must be a table of the host's limits, such as [hosts.b1] max_agents = 4, not an integer`},
	} {
		cfg, err := Parse([]byte("scrollback = 500\n"+c.file), "config.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.file, err, c.want)
		}
		if cfg.Scrollback != 500 || len(cfg.SpawnHosts) != 0 || len(cfg.Hosts) != 0 {
			t.Errorf("%q: the bad entry was taken, or the rest of the file was not: %+v %+v %d", c.file, cfg.SpawnHosts, cfg.Hosts, cfg.Scrollback)
		}
	}
}
