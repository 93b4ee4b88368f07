package server

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/procstat"
	"github.com/melmux/melmux/internal/proto"
)

// What the panes' process trees use is read from /proc only while someone
// asks (list_panes with resources, `melmux top`), at most once a
// resourceEvery: a `top` left open on twenty panes must cost the server
// next to nothing.
const (
	resourceEvery = time.Second
	// A first sample, or one after a long pause, is a baseline: CPU use is
	// the difference of two samples, so the request waits resourceBaseline
	// for the second.
	resourceBaseline = 250 * time.Millisecond
	resourceStale    = 10 * time.Second
)

// usage is a pane tree's CPU use (percent of one core) and resident bytes.
type usage struct {
	cpu float64
	rss int64
}

// resources samples the process trees of the panes when asked.
type resources struct {
	mu   sync.Mutex // guards the fields below; held while sampling, so requests at the same moment share one sample
	at   time.Time  // when prev was read
	prev map[int]procstat.Tree
	last map[int]usage // what the sample at `at` gave, by root pid
}

// measure gives the usage of the trees rooted at pids. A sample taken
// within resourceEvery answers again; a root it lacks, or no sample within
// resourceStale, takes a baseline first.
func (r *resources) measure(ctx context.Context, pids []int) (map[int]usage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	known := func(m map[int]procstat.Tree) bool {
		for _, pid := range pids {
			if _, ok := m[pid]; !ok {
				return false
			}
		}
		return true
	}
	if time.Since(r.at) < resourceEvery && known(r.prev) {
		return r.last, nil
	}
	if r.prev == nil || time.Since(r.at) > resourceStale || !known(r.prev) {
		base, err := procstat.Sample(pids)
		if err != nil {
			return nil, err
		}
		r.prev, r.at = base, time.Now()
		select {
		case <-time.After(resourceBaseline):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	cur, err := procstat.Sample(pids)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	elapsed := now.Sub(r.at)
	out := make(map[int]usage, len(cur))
	for pid, t := range cur {
		u := usage{rss: t.RSS}
		if p, ok := r.prev[pid]; ok && elapsed > 0 {
			// A process that left the tree unreaped (a daemon) takes its
			// time with it: never below zero.
			u.cpu = math.Round(max(float64(t.CPU-p.CPU), 0)/float64(elapsed)*1000) / 10
		}
		out[pid] = u
	}
	r.prev, r.at, r.last = cur, now, out
	return out, nil
}

// addResources sets cpu and rss on list_panes rows; pids are the rows'
// process ids (0 for a pane whose program has exited: it uses nothing). A
// remote pane's are read on its host (remote_usage.go).
func (s *Server) addResources(ctx context.Context, rows []proto.PaneInfo) error {
	var pids []int
	remote := false
	for _, r := range rows {
		if r.Host != nil {
			remote = true
			continue
		}
		if r.Status == "running" && r.PID > 0 {
			pids = append(pids, r.PID)
		}
	}
	var use map[int]usage
	if len(pids) > 0 {
		var err error
		if use, err = s.res.measure(ctx, pids); err != nil {
			return errorf(proto.CodeFailed, "list_panes: resources: %v", err)
		}
	}
	for i := range rows {
		u := use[rows[i].PID]
		if rows[i].Status != "running" {
			u = usage{}
		}
		cpu, rss := u.cpu, u.rss
		rows[i].CPU, rows[i].RSS = &cpu, &rss
	}
	if remote {
		s.remoteUsage(ctx, rows)
	}
	return nil
}
