package agentstate

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// ProgramStatus is one program status report (OSC 7501), as Claude Code
// and Codex send them: "state=blocked:app=claude-code:kind=permission:msg=…".
type ProgramStatus struct {
	State string // working | blocked | done | idle, as the program said
	App   string // claude-code, codex
	Kind  string // what a blocked program waits for: permission, ...
	Msg   string // the message, decoded
}

// ParseProgramStatus reads a report's text. It fails when there is no
// state.
func ParseProgramStatus(text string) (ProgramStatus, error) {
	var ps ProgramStatus
	for _, field := range strings.Split(text, ":") {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "state":
			ps.State = v
		case "app":
			ps.App = v
		case "kind":
			ps.Kind = v
		case "msg":
			ps.Msg = decodeMsg(v)
		}
	}
	if ps.State == "" {
		return ps, fmt.Errorf("program status %q has no state=", clip(text, 60))
	}
	return ps, nil
}

// decodeMsg decodes a base64 message; text that is not base64 is kept.
func decodeMsg(v string) string {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding} {
		if b, err := enc.DecodeString(v); err == nil {
			return strings.ToValidUTF8(string(b), "\uFFFD")
		}
	}
	return v
}

// AgentState is the state the report says: blocked is waiting on a person,
// done and idle are idle. "" for a state this package does not know.
func (ps ProgramStatus) AgentState() State {
	switch ps.State {
	case "working":
		return Working
	case "blocked":
		return Waiting
	case "done", "idle":
		return Idle
	}
	return ""
}

// Describe says the report in words: `blocked kind=permission "approve Bash: ls"`.
func (ps ProgramStatus) Describe() string {
	s := ps.State
	if ps.Kind != "" {
		s += " kind=" + ps.Kind
	}
	if ps.Msg != "" {
		s += fmt.Sprintf(" %q", clip(ps.Msg, 60))
	}
	return s
}
