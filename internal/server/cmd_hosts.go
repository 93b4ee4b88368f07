package server

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
)

// hosts lists the hosts the session's panes run on, each with the state of
// its links: the worst of its panes' (failed, disconnected, connecting,
// connected), since when, and why; and the round trip its live links
// measured (each pane has its own ssh channel: the median of theirs). The
// hosts the config names for placement ([agent] spawn_hosts, [hosts]) are
// listed too, with none of their panes running (unused), and this machine
// when the config names it: each with the agents running there as a lead's
// placement counts them, and its max_agents.
func init() {
	register(&Command{Name: "hosts", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		if err := decodeParams("hosts", raw, &struct{}{}); err != nil {
			return nil, err
		}
		rank := map[string]int{proto.LinkConnected: 0, proto.LinkConnecting: 1, proto.LinkDisconnected: 2, proto.LinkFailed: 3}
		by := map[string]*proto.HostInfo{}
		rtts := map[string][]float64{}
		var agents map[string]int
		s.withFresh(func() { // what each pane runs looked up, for the agents counted
			for id, e := range s.panes {
				l := e.link
				if l == nil || l.host == "" {
					continue
				}
				h := by[l.host]
				if h == nil {
					h = &proto.HostInfo{Host: l.host, State: l.state, Since: l.since.UnixMilli(), Error: l.err}
					by[l.host] = h
				} else if rank[l.state] > rank[h.State] || l.state == h.State && l.since.UnixMilli() < h.Since {
					h.State, h.Since, h.Error = l.state, l.since.UnixMilli(), l.err
				}
				h.Panes = append(h.Panes, id)
				if l.state == proto.LinkConnected && l.rttMS > 0 {
					rtts[l.host] = append(rtts[l.host], l.rttMS)
				}
			}
			agents, _ = s.agentsByHostLocked()
		})
		spawn, limits := s.placementConfig()
		named := append([]string(nil), spawn...)
		for h := range limits {
			named = append(named, h)
		}
		for _, h := range named {
			if by[h] == nil {
				state := proto.HostUnused
				if h == config.LocalHost {
					state = proto.HostLocal
				}
				by[h] = &proto.HostInfo{Host: h, State: state, Panes: []int{}}
			}
		}
		out := proto.HostsResult{Hosts: []proto.HostInfo{}}
		for _, h := range by {
			sort.Ints(h.Panes)
			if r := rtts[h.Host]; len(r) > 0 && h.State == proto.LinkConnected {
				sort.Float64s(r)
				m := r[len(r)/2]
				h.LatencyMS = &m
			}
			h.Agents, h.MaxAgents = agents[h.Host], limits[h.Host].MaxAgents
			out.Hosts = append(out.Hosts, *h)
		}
		sort.Slice(out.Hosts, func(i, j int) bool { return out.Hosts[i].Host < out.Hosts[j].Host })
		return out, nil
	}})
}
