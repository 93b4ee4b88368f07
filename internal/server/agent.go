package server

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
	"github.com/melmux/melmux/pane/term"
)

// agentKindTTL bounds how often a pane's foreground program is looked up
// (an ioctl and a /proc read): often enough to notice `claude` started in a
// shell, rarely enough to cost nothing per frame.
const agentKindTTL = time.Second

// kindOfArgv finds a coding agent in an argv: the program itself, the script
// an interpreter runs (node /usr/bin/claude), or the command of `sh -c`.
func kindOfArgv(argv []string) string {
	for i := 0; i < len(argv) && i < 3; i++ {
		if f := strings.Fields(argv[i]); len(f) > 0 {
			if k := agentstate.Kind(f[0]); k != "" {
				return k
			}
		}
	}
	return ""
}

// lookupForegroundLocked refreshes what the pane runs now, at most once per
// agentKindTTL: the foreground program while it runs, the program it ran
// once it has exited. Caller holds Server.mu.
func (e *paneEntry) lookupForegroundLocked() {
	if !e.kindAt.IsZero() && time.Since(e.kindAt) < agentKindTTL {
		return
	}
	argv := e.p.Foreground()
	e.fg = ""
	if len(argv) > 0 {
		e.fg = filepath.Base(argv[0])
	} else {
		argv = e.p.Argv()
	}
	e.kind, e.kindAt = kindOfArgv(argv), time.Now()
}

// agentKindLocked is the kind of coding agent the pane runs now, "" for none.
func (e *paneEntry) agentKindLocked() string {
	e.lookupForegroundLocked()
	return e.kind
}

// foregroundLocked names the program in the pane's foreground ("vim" while
// the shell runs vim), "" once the pane's program has exited.
func (e *paneEntry) foregroundLocked() string {
	e.lookupForegroundLocked()
	return e.fg
}

// agentLocked describes the agent in a pane, or nil when it runs none. It
// also says when the state could change with no output (a working agent
// turning idle once quiet), 0 for never. Caller holds Server.mu.
// A registered melmux agent takes precedence over what the screen shows.
func (e *paneEntry) agentLocked(id int) (*proto.AgentInfo, time.Duration) {
	if e.melLocked() != nil {
		return e.mel.infoLocked(e.p), 0
	}
	kind := e.agentKindLocked()
	if kind == "" {
		return nil, 0
	}
	info := &proto.AgentInfo{ID: fmt.Sprintf("pane-%d", id), Role: "external", Kind: kind}
	if !e.p.Status().Running {
		info.State = string(agentstate.Exited)
		return info, 0
	}
	quiet := time.Since(e.p.LastOutput())
	state := agentstate.Detect(agentScreen(e.p.Term()), quiet)
	info.State = string(state)
	var next time.Duration
	if state == agentstate.Working && quiet < agentstate.QuietAfter {
		next = agentstate.QuietAfter - quiet
	}
	return info, next
}

// agentScreen is the screen as agentstate reads it, taken at one instant.
func agentScreen(t *term.Terminal) agentstate.Screen {
	txt := t.TextSince(math.MaxUint64)
	return agentstate.Screen{Lines: txt.Lines, CursorY: txt.CursorY, CursorHidden: txt.CursorHidden}
}
