package agentstate

import "testing"

// Reports as Claude Code 2.1.328 and Codex 0.169.0 send them.
func TestParseProgramStatus(t *testing.T) {
	for _, tc := range []struct {
		text  string
		want  ProgramStatus
		state State
		words string
	}{
		{"state=blocked:app=claude-code:kind=permission:msg=YXBwcm92ZSBCYXNoOiB0b3VjaCBidWlsdCAmJiBzZXEgMSAz",
			ProgramStatus{State: "blocked", App: "claude-code", Kind: "permission", Msg: "approve Bash: touch built && seq 1 3"},
			Waiting, `blocked kind=permission "approve Bash: touch built && seq 1 3"`},
		{"state=working:app=codex", ProgramStatus{State: "working", App: "codex"}, Working, "working"},
		{"state=done:app=claude-code", ProgramStatus{State: "done", App: "claude-code"}, Idle, "done"},
		{"state=idle:app=claude-code", ProgramStatus{State: "idle", App: "claude-code"}, Idle, "idle"},
		{"state=sleeping:app=x:msg=not base64!", ProgramStatus{State: "sleeping", App: "x", Msg: "not base64!"}, "", `sleeping "not base64!"`},
	} {
		ps, err := ParseProgramStatus(tc.text)
		if err != nil || ps != tc.want || ps.AgentState() != tc.state || ps.Describe() != tc.words {
			t.Errorf("%q: %+v %v (%s, %q), want %+v (%s, %q)", tc.text, ps, err, ps.AgentState(), ps.Describe(), tc.want, tc.state, tc.words)
		}
	}
	if _, err := ParseProgramStatus("app=codex"); err == nil || err.Error() != `program status "app=codex" has no state=` {
		t.Errorf("no state: %v", err)
	}
}
