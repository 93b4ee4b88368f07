package server

import (
	"sync/atomic"
	"time"

	"github.com/melmux/melmux/pane"
)

// testHooks are the points where a test of this package steps into one
// running server: to panic there, to hold a goroutine at a known moment,
// to record. Each is nil but in tests. They are the server's, not the
// package's, so that tests of servers of their own run in parallel
// without one's hook firing in another's server.
type testHooks struct {
	// lock runs each time withLock has taken Server.mu: a test panics
	// there to check that the session goes on.
	lock atomic.Pointer[func()]
	// agentLock runs each time agentDo has taken a pane's agent lock.
	agentLock atomic.Pointer[func()]
	// unlocked is told of each use of a pane's agent state found without
	// its agent lock (mustHoldAgent).
	unlocked atomic.Pointer[func(what string)]
	// prompt runs first in each verb typed at the prompt, on the verb's
	// goroutine.
	prompt atomic.Pointer[func(args []string)]
	// turnWait is called each time read_agent goes to sleep waiting for a
	// turn: the point where a test may end the turn knowing the wait, not
	// luck, saw it end.
	turnWait atomic.Pointer[func()]
	// policyKey runs before the policy types its answer: the moment a test
	// may look at what others see of a question being answered.
	policyKey atomic.Pointer[func()]
	// end runs first in each step of a session's end.
	end atomic.Pointer[func(step string)]
	// state runs in each build of the state, under Server.mu.
	state atomic.Pointer[func()]
	// look runs in each lookup of a running pane before it reads /proc.
	look atomic.Pointer[func(*pane.Pane)]
	// frame runs in each frame as it begins to read the panes' emulators,
	// which it does holding no lock of the server's.
	frame atomic.Pointer[func()]
}

// runHook runs h's function, if one is set.
func runHook(h *atomic.Pointer[func()]) {
	if f := h.Load(); f != nil {
		(*f)()
	}
}

// tuning is what a test of this package shortens or watches of one
// server, given in Config.tune so that it is set before the server's
// goroutines read it. A zero field is the real value.
type tuning struct {
	maxResult  int           // maxResult
	slowClient time.Duration // slowClientLimit
	// echoHold bounds a key's hold (sched.Config.EchoHold); 0 = the
	// real one. Tests lengthen it, so that a lapse under load is never
	// taken for a release.
	echoHold time.Duration
	// deliverEcho, deliverReact and deliverPause (deliver.go).
	deliverEcho, deliverReact, deliverPause time.Duration
	// keepUmask: Listen binds its socket under the process's umask, not
	// 0177, and relies on its chmod alone. The umask is the process's: tests
	// that run in parallel write files (a stand-in agent, 0755) and start
	// panes meanwhile, which would take 0177 too.
	keepUmask bool
	// web is the web server's command line (web.go's webCommand): this
	// package's test binary plays melmux-web.
	web func() []string
}

// orDefaults is t with the real value in each zero field.
func (t tuning) orDefaults() tuning {
	if t.maxResult == 0 {
		t.maxResult = maxResult
	}
	if t.slowClient == 0 {
		t.slowClient = slowClientLimit
	}
	if t.deliverEcho == 0 {
		t.deliverEcho = deliverEcho
	}
	if t.deliverReact == 0 {
		t.deliverReact = deliverReact
	}
	if t.deliverPause == 0 {
		t.deliverPause = deliverPause
	}
	return t
}
