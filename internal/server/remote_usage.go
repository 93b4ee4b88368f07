package server

import (
	"context"
	"syscall"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// A remote pane's process here is its mirror, melmux __remote: what `top`
// shows of it is what its program uses on the host. The host's session
// reads that with its own sampler (list_panes with resources, there), only
// when asked: the local session asks a connected pane's mirror with
// SIGUSR1, the mirror asks the host's bridge over the link, and the answer
// comes back as a remote_link report (tookUsageLocked).
const (
	// remoteUsageFresh: a figure this recent answers without waiting (the
	// question goes on for the next); `top` refreshes every second.
	remoteUsageFresh = 2 * resourceEvery
	// remoteUsageWait bounds how long one list_panes waits for hosts that
	// have no fresh figure: a round trip over ssh and the host's baseline.
	remoteUsageWait = 3 * time.Second
)

// tookUsageLocked stores a usage the pane's mirror told.
func (l *paneLink) tookUsageLocked(u proto.RemoteUsage) {
	l.usage, l.usageAt = &u, time.Now()
	if l.usageCh != nil {
		close(l.usageCh)
		l.usageCh = nil
	}
}

// remoteUsage sets cpu and rss on the rows of remote panes from their
// hosts. A row whose host said nothing within resourceStale (its link is
// down, or the host did not answer in time) is left without them: unknown,
// not nothing.
func (s *Server) remoteUsage(ctx context.Context, rows []proto.PaneInfo) {
	type asked struct {
		row  int
		link *paneLink
	}
	var ask []asked
	var signal []int
	var wait []<-chan struct{}
	s.withLock(func() {
		now := time.Now()
		for i, r := range rows {
			e, ok := s.panes[r.ID]
			if r.Host == nil || r.Status != "running" || !ok || e.link == nil {
				continue
			}
			l := e.link
			ask = append(ask, asked{i, l})
			if l.state != proto.LinkConnected || r.PID <= 0 {
				continue
			}
			signal = append(signal, r.PID)
			// A host already asked and not answering since is not waited
			// for again at every refresh.
			unanswered := l.askedAt.After(l.usageAt) && now.Sub(l.askedAt) < resourceStale
			if now.Sub(l.usageAt) > remoteUsageFresh && !unanswered {
				if l.usageCh == nil {
					l.usageCh = make(chan struct{})
				}
				wait = append(wait, l.usageCh)
			}
			l.askedAt = now
		}
	})
	for _, pid := range signal {
		_ = syscall.Kill(pid, syscall.SIGUSR1) // a mirror that just ended answers nothing
	}
	if len(wait) > 0 {
		deadline := time.NewTimer(remoteUsageWait)
		defer deadline.Stop()
	waiting:
		for _, ch := range wait {
			select {
			case <-ch:
			case <-deadline.C:
				break waiting
			case <-ctx.Done():
				break waiting
			}
		}
	}
	s.withLock(func() {
		for _, a := range ask {
			l := a.link
			if l.usage == nil || time.Since(l.usageAt) > resourceStale {
				rows[a.row].CPU, rows[a.row].RSS = nil, nil
				continue
			}
			cpu, rss := l.usage.CPU, l.usage.RSS
			rows[a.row].CPU, rows[a.row].RSS = &cpu, &rss
		}
	})
}
