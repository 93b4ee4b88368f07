package server

import (
	"slices"
	"testing"
)

// Gemini CLI runs headless with CI=true or GITHUB_ACTIONS=true: a gemini
// melmux starts gets neither; any other program keeps its environment.
func TestAgentEnvGeminiNotHeadless(t *testing.T) {
	env := []string{"HOME=/h", "CI=true", "PATH=/bin", "GITHUB_ACTIONS=true", "CIRCLECI=true"}
	for _, argv0 := range []string{"gemini", "/usr/local/bin/gemini"} {
		got := agentEnv([]string{argv0, "--model", "x"}, env)
		if want := []string{"HOME=/h", "PATH=/bin", "CIRCLECI=true"}; !slices.Equal(got, want) {
			t.Errorf("%s: environment %q, want %q", argv0, got, want)
		}
	}
	if env[1] != "CI=true" {
		t.Errorf("the caller's environment was changed: %q", env)
	}
	for _, argv := range [][]string{{"claude"}, {"sh", "-c", "gemini"}, nil} {
		if got := agentEnv(argv, env); !slices.Equal(got, env) {
			t.Errorf("%q: environment %q, want it unchanged", argv, got)
		}
	}
}
