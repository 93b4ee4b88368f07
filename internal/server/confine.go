package server

import (
	"fmt"
	"runtime/debug"
)

// Work on goroutines of the server's own (a verb typed at the prompt, a
// client's readers, a pane's agent watcher, a notify command...) runs under
// no request's recover: a panic there would end the whole session. Each
// such goroutine defers recovered, so that a panic is confined to its work.

// recovered confines a panic to the goroutine whose work it ends: the panic
// is logged with its stack and, when tell is set, told as an error to whom
// the work was for. recover stops a panic only when the deferred function
// itself calls it, so recovered must be deferred directly (defer
// s.recovered(...)), never called from another deferred function.
func (s *Server) recovered(what string, tell func(error)) {
	r := recover()
	if r == nil {
		return
	}
	s.log.Error(what+" panic", "panic", r, "stack", string(debug.Stack()))
	if tell != nil {
		tell(fmt.Errorf("%s failed inside the server: %v", what, r))
	}
}

// confine runs f, turning a panic into an error (logged with its stack), for
// work whose caller goes on after it.
func (s *Server) confine(what string, f func() error) (err error) {
	defer s.recovered(what, func(e error) { err = e })
	return f()
}

// confined runs f with a panic confined to it (logged with its stack), for
// work whose caller goes on after it whatever became of f: the next save of
// the state, the next step of a session's end.
func (s *Server) confined(what string, f func()) {
	defer s.recovered(what, nil)
	f()
}
