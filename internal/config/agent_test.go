package config

import (
	"strings"
	"testing"
	"time"
)

// The leg bounds: calls, time, and sizes as bytes or with a binary unit.
func TestAgentLegBounds(t *testing.T) {
	cfg, err := Parse([]byte("[agent]\nmax_calls = 8\nmax_leg_time = \"90s\"\nmax_reply_bytes = \"512KiB\"\nmax_args_bytes = 2048\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agent
	if a.MaxCalls != 8 || a.MaxLegTime != 90*time.Second || a.MaxReplyBytes != 512<<10 || a.MaxArgsBytes != 2048 {
		t.Errorf("agent = %+v", a)
	}
	for src, n := range map[string]int{`"4MiB"`: 4 << 20, `"1GiB"`: 1 << 30, `"1024 B"`: 1024, `"3000"`: 3000, `" 2 KiB "`: 2048} {
		cfg, err := Parse([]byte("[agent]\nmax_reply_bytes = "+src+"\n"), "c.toml")
		if err != nil || cfg.Agent.MaxReplyBytes != n {
			t.Errorf("max_reply_bytes = %s: %d, %v; want %d", src, cfg.Agent.MaxReplyBytes, err, n)
		}
	}
	if d := Defaults().Agent; d.MaxCalls != 0 || d.MaxLegTime != 0 || d.MaxReplyBytes != 0 || d.MaxArgsBytes != 0 {
		t.Errorf("defaults = %+v, want the bounds 0 (the orchestrator's defaults)", d)
	}
}

func TestAgentLegBoundErrors(t *testing.T) {
	src := "[agent]\nmax_calls = 0\nmax_leg_time = \"0s\"\nmax_reply_bytes = \"4MB\"\nmax_args_bytes = 10\n"
	_, err := Parse([]byte(src), "c.toml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`c.toml:2: agent.max_calls: 0 is out of range (1 to 10000)`,
		`c.toml:3: agent.max_leg_time: "0s" must be a duration from 1s to 24h`,
		`c.toml:4: agent.max_reply_bytes: "4MB" must be a size from 1KiB to 1GiB: a number of bytes, or a string such as "512KiB", "4MiB" or "1GiB"`,
		`c.toml:5: agent.max_args_bytes: 10 bytes is out of range: must be a size from 1KiB to 1GiB`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	for _, src := range []string{`max_calls = "8"`, `max_calls = 10001`, `max_leg_time = 30`, `max_leg_time = "25h"`, `max_reply_bytes = "2GiB"`,
		`max_reply_bytes = "KiB"`, `max_reply_bytes = true`, `max_args_bytes = -1`, `max_args_bytes = "99999999999999999999"`} {
		if _, err := Parse([]byte("[agent]\n"+src+"\n"), "c.toml"); err == nil {
			t.Errorf("%s: no error", src)
		} else if !strings.Contains(err.Error(), "c.toml:2: agent.") {
			t.Errorf("%s: %v, want the line and key", src, err)
		}
	}
}
