package server

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/melmux/melmux/internal/transcript"
)

// agentProc is where an agent process keeps its sessions.
type agentProc = transcript.Proc

// fromTranscript reads the turn's reply from the agent's session files,
// waiting a moment for them to show the turn finished.
func (s *Server) fromTranscript(ctx context.Context, e *paneEntry, kind string, pid int, start time.Time, text string) (string, bool) {
	proc, ok := s.agentProc(e, pid)
	if !ok {
		return "", false
	}
	deadline := time.Now().Add(replyTranscriptWait)
	var last transcript.Reply
	for {
		r, err := transcript.Find(kind, proc, start, text)
		switch {
		case err == nil && r.Done:
			return r.Text, r.Text != ""
		case err == nil:
			last = r
		case errors.Is(err, transcript.ErrNoTranscript) || errors.Is(err, transcript.ErrUnknownKind):
			return "", false
		}
		if time.Now().After(deadline) || !sleepCtx(ctx, replyTranscriptLook) {
			return last.Text, last.Text != ""
		}
	}
}

// agentProc is where the agent process pid keeps its sessions, read from
// /proc once per process and kept, so a reply is found after it exited.
func (s *Server) agentProc(e *paneEntry, pid int) (transcript.Proc, bool) {
	t := &e.turns
	var kept transcript.Proc
	var have, fresh bool
	e.agentDo(func() {
		kept, have = t.proc, t.procPID != 0
		fresh = pid != 0 && pid != t.procPID
	})
	if !fresh {
		return kept, have
	}
	proc, err := transcript.ReadProc(pid)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("reading an agent's process", "pid", pid, "err", err)
		}
		return kept, have
	}
	e.agentDo(func() { t.proc, t.procPID = proc, pid })
	return proc, true
}
