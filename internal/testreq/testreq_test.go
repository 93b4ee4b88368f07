package testreq

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that notes how a test would have ended.
type recorder struct {
	testing.TB
	ended string // "skip" or "fail"
	msg   string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.ended, r.msg = "skip", fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.ended, r.msg = "fail", fmt.Sprintf(format, args...)
}

func TestAMissingToolSkipsOnlyOutsideCI(t *testing.T) {
	const missing = "melmux-no-such-program"
	for _, c := range []struct {
		env  map[string]string
		gate []string
		want string
	}{
		{map[string]string{Gate: ""}, nil, "skip"},
		{map[string]string{Gate: "0"}, nil, "skip"},
		{map[string]string{Gate: "1"}, nil, "fail"},
		{map[string]string{Gate: "", "MELMUX_REQUIRE_TMUX": "1"}, []string{"MELMUX_REQUIRE_TMUX"}, "fail"},
		{map[string]string{Gate: "", "MELMUX_REQUIRE_TMUX": "1"}, nil, "skip"},
	} {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		var r recorder
		if p := Tool(&r, missing, c.gate...); p != "" || r.ended != c.want {
			t.Errorf("%v, gates %v: Tool = %q and the test would %s, want %s", c.env, c.gate, p, r.ended, c.want)
		}
		t.Setenv("MELMUX_REQUIRE_TMUX", "")
	}
	t.Setenv(Gate, "1")
	var r recorder
	if p := Tool(&r, "sh"); p == "" || r.ended != "" {
		t.Errorf("sh: Tool = %q, the test would %s", p, r.ended)
	}
	Skip(&r, "no widget")
	if r.ended != "fail" || !strings.Contains(r.msg, Gate+"=1") {
		t.Errorf("under %s=1 Skip would %s: %q", Gate, r.ended, r.msg)
	}
}
