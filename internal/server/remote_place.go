package server

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
)

// Placement (docs/remote.md): a lead's spawn_agent, and its open_pane of
// an agent CLI, go to the host of [agent] spawn_hosts with the fewest
// agents running that has room under its [hosts] max_agents; the tool
// definitions say nothing of hosts, so the model never chooses one.

// placement is a host chosen for a pane about to start. It holds the
// session's placement slot (Server.placing) from its count until its pane
// exists and is marked, so that a lead's spawns at once count each other;
// not while the pane's program starts or its link comes up.
type placement struct {
	host string // config.LocalHost for this machine
	slot chan struct{}
	once sync.Once
}

// done gives the placement slot back, for the next placement to count;
// mark the pane first.
func (pl *placement) done() {
	if pl != nil {
		pl.once.Do(func() { <-pl.slot })
	}
}

// keepChosen gives the placement slot back unless a host was chosen: the
// placement then holds it until done. place defers it, so that no way out
// of place (no host with room, a panic) leaves the slot taken.
func (pl *placement) keepChosen() {
	if pl.host == "" {
		pl.done()
	}
}

// remoteHost is the host to give open_pane or spawn_agent: none for this
// machine.
func (pl *placement) remoteHost() string {
	if pl == nil || pl.host == config.LocalHost {
		return ""
	}
	return pl.host
}

// markPlacedLocked counts e as an agent on its host from now on, before
// its program shows as one (a worker registers, a CLI is seen among its
// processes, after their start).
func (s *Server) markPlacedLocked(e *paneEntry) {
	e.linkLocked().placed = true
}

// placementConfig reads what placement needs from the session's config
// file, at each placement: an edit applies to the next spawn. A file with
// problems gives what is good in it, as everywhere (the session reports
// the problems when it loads the file).
func (s *Server) placementConfig() ([]string, map[string]config.Host) {
	if s.configFile == "" {
		return nil, nil
	}
	cfg, _ := config.LoadFile(s.configFile)
	return cfg.SpawnHosts, cfg.Hosts
}

// place chooses the host of a lead's new agent. It returns nil when the
// config lists no spawn_hosts: the pane is this machine's, as before.
// With localOnly (a worktree, which is made on this machine) only "local"
// is a candidate. The caller calls done once the pane exists (marked with
// markPlacedLocked), or failed to.
func (s *Server) place(verb string, localOnly bool) (*placement, error) {
	hosts, limits := s.placementConfig()
	if len(hosts) == 0 {
		return nil, nil
	}
	s.placing <- struct{}{}
	pl := &placement{slot: s.placing}
	defer pl.keepChosen()
	var count map[string]int
	var down map[string]string
	s.withLock(func() { count, down = s.agentsByHostLocked() })
	best, bestN := "", 0
	var full []string
	for _, h := range hosts {
		n := count[h]
		switch {
		case localOnly && h != config.LocalHost:
			full = append(full, fmt.Sprintf("%s (a worktree is made on this machine)", h))
		case down[h] != "":
			full = append(full, fmt.Sprintf("%s (%s)", h, down[h]))
		case limits[h].MaxAgents > 0 && n >= limits[h].MaxAgents:
			full = append(full, fmt.Sprintf("%s (%d of %d agents)", h, n, limits[h].MaxAgents))
		case best == "" || n < bestN:
			best, bestN = h, n
		}
	}
	if best == "" {
		sort.Strings(full)
		return nil, errorf(proto.CodeFailed, "%s: no host of [agent] spawn_hosts has room: %s; wait for an agent to finish (kill its pane), or raise max_agents in [hosts] of the config",
			verb, strings.Join(full, ", "))
	}
	pl.host = best
	return pl, nil
}

// agentsByHostLocked counts the agents running on each host (this
// machine's as config.LocalHost), and names the hosts whose links are down
// with their state. Caller holds Server.mu.
func (s *Server) agentsByHostLocked() (count map[string]int, down map[string]string) {
	count, down = map[string]int{}, map[string]string{}
	for _, e := range s.panes {
		if !e.p.Status().Running {
			continue
		}
		host := config.LocalHost
		if l := e.link; l != nil && l.host != "" {
			host = l.host
			if l.state == proto.LinkDisconnected || l.state == proto.LinkFailed {
				down[host] = l.state
			}
		}
		if s.runsAgentLocked(e) {
			count[host]++
		}
	}
	return count, down
}

// runsAgentLocked says e counts as an agent on its host: a melmux worker
// (a lead is not counted: it places the others), a coding agent CLI seen
// here or on its host, or a pane placement put an agent in that has not
// shown as one yet.
func (s *Server) runsAgentLocked(e *paneEntry) bool {
	if a, _ := s.mels.view(e.p.ID()); a != nil {
		return a.live && a.role != "lead"
	}
	if l := e.link; l != nil {
		if l.placed || l.fg != nil && l.fg.Kind != "" {
			return true
		}
	}
	var kind string
	e.agentDo(func() { kind = e.kind })
	return kind != ""
}

// agentCommand says an open_pane command line runs an agent CLI (its first
// word names one), which a lead's placement moves.
func (s *Server) agentCommand(p proto.OpenPaneParams) bool {
	argv := p.Argv
	if len(argv) == 0 {
		argv = strings.Fields(p.Command)
	}
	if len(argv) == 0 {
		return false
	}
	k, _ := s.rules().KindOfProcs([]agentstate.Proc{{Argv: argv}})
	return k != ""
}
