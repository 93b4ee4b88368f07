package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/melmux/melmux/internal/agentcli"
)

// TestRealAgents runs the scripts in testdata/realagent against the real
// Claude Code and Codex (the pinned releases, installed by .ci/run; skipped
// with the install command when missing, failed with
// MELMUX_REQUIRE_AGENTS=1) in real melmux panes. The only fake is the model:
// a scripted endpoint in this process, driven by the script's `model`
// command.
func TestRealAgents(t *testing.T) {
	runRealAgents(t, "testdata/realagent", map[string]string{
		"claude": agentcli.ClaudeCode.Require(t), "codex": agentcli.Codex.Require(t)})
}

// TestRealGemini runs the scripts in testdata/realgemini against the real
// Gemini CLI, as TestRealAgents does Claude Code and Codex; it needs only
// Gemini CLI (and node), so that either can run without the other.
func TestRealGemini(t *testing.T) {
	runRealAgents(t, "testdata/realgemini", map[string]string{"gemini": agentcli.Gemini.Require(t)})
}

// TestRealLead runs the scripts in testdata/reallead: a Mel lead, scripted
// over the relay protocol (fakemodel), driving the real Claude Code, Codex
// and Gemini CLI in panes, each of those talking to the scripted endpoint
// (model).
func TestRealLead(t *testing.T) {
	runRealAgents(t, "testdata/reallead", map[string]string{
		"claude": agentcli.ClaudeCode.Require(t), "codex": agentcli.Codex.Require(t), "gemini": agentcli.Gemini.Require(t)})
}

// realAgentSlots keeps the real agents' scripts to GOMAXPROCS at once, as
// -parallel's default did before TestMain raised it: each runs node
// processes of a few hundred MB, and their turns, timed by the agents
// themselves, grew late with more of them at once.
var realAgentSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

func runRealAgents(t *testing.T, dir string, bins map[string]string) {
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			realAgentSlots <- struct{}{}
			env.Defer(func() { <-realAgentSlots })
			return setupRealAgentEnv(env, bins)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"model": modelCmd, "fakemodel": fakeModelCmd},
	})
}

type endpointKey struct{}

// setupRealAgentEnv adds to the scripts' usual setup a scripted endpoint,
// the homes that take Claude Code (HOME=$WORK), Codex
// (CODEX_HOME=$WORK/.codex) and Gemini CLI (HOME=$WORK) straight to their
// prompts in $WORK, their environment, the agents of bins on PATH under
// their names, and a check that nothing the script started outlives it.
func setupRealAgentEnv(env *testscript.Env, bins map[string]string) error {
	if err := setupScriptEnv(env); err != nil {
		return err
	}
	model, err := agentcli.NewModel()
	if err != nil {
		return err
	}
	env.Defer(func() { model.Close() })
	env.Values[endpointKey{}] = model
	if err := agentcli.WriteClaudeHome(env.WorkDir, agentcli.TestKey, env.WorkDir); err != nil {
		return err
	}
	codexHome := filepath.Join(env.WorkDir, ".codex")
	if err := agentcli.WriteCodexHome(codexHome, model.URL(), env.WorkDir); err != nil {
		return err
	}
	if err := agentcli.WriteGeminiHome(env.WorkDir, env.WorkDir); err != nil {
		return err
	}
	agentEnv := append(agentcli.ClaudeEnv(model.URL(), agentcli.TestKey), agentcli.CodexEnv(codexHome)...)
	for _, kv := range append(agentEnv, agentcli.GeminiEnv(model.URL())...) {
		k, v, _ := strings.Cut(kv, "=")
		env.Setenv(k, v)
	}
	// Links named as the agents, so that the pane's foreground program
	// reads as the agent it is.
	dir := filepath.Join(env.WorkDir, ".bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, bin := range bins {
		if err := os.Symlink(bin, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	env.Setenv("PATH", dir+string(os.PathListSeparator)+env.Getenv("PATH"))
	// Codex's own launcher, for scripts that start it as npm users do:
	// node running the script that runs the native binary as its child.
	env.Setenv("CODEX_JS", filepath.Join(agentcli.Dir(), "node_modules", "@openai", "codex", "bin", "codex.js"))
	// Under -race every melmux the script runs would sleep a second on exit
	// (the race runtime's default atexit_sleep_ms) for reports from threads
	// still running; these short CLI calls have none, and the daemon's
	// reports come while it runs.
	env.Setenv("GORACE", strings.TrimSpace(env.Getenv("GORACE")+" atexit_sleep_ms=0"))

	mark := env.WorkDir
	env.Setenv(agentcli.MarkEnv, mark)
	t, ok := env.T().(testing.TB)
	if !ok {
		return fmt.Errorf("testscript gave no testing.TB")
	}
	// Cleanup runs after the setup's Defer has ended the session: by then
	// the agent and everything it started must be gone.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if left := agentcli.WaitGone(ctx, mark); len(left) > 0 {
			agentcli.KillMarked(mark)
			t.Errorf("still running 10s after the session ended (now killed): %v", left)
		}
	})
	return nil
}

// modelCmd drives the scripted endpoint:
//
//	model reply MATCH TEXT         answer a prompt containing MATCH with TEXT
//	model replyfile MATCH FILE     answer it with the text of FILE
//	model tool MATCH NAME JSON TEXT answer it with a call of tool NAME (Claude Code: an MCP
//	                               tool) with JSON as its input, then TEXT
//	model toolbody                 print the body of the last request carrying a tool's result
//	model shell MATCH COMMAND TEXT answer it with a shell tool call of COMMAND (Claude Code's
//	                               Bash, Codex's exec_command outside its sandbox, Gemini
//	                               CLI's run_shell_command), then TEXT
//	model wait [-timeout D] TEXT   wait for a request whose prompt contains TEXT; print the prompt
//	model wait [-timeout D] -tool  wait for a request carrying a tool's result
//	model prompts                  print every model request's prompt, quoted, one a line
//	model hold / model release     hold answers (the agent stays at work) until released
func modelCmd(ts *testscript.TestScript, neg bool, args []string) {
	model := ts.Value(endpointKey{}).(*agentcli.Model)
	if neg {
		ts.Fatalf("model: negation is not supported")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: model reply|shell|wait|prompts|hold|release ...")
	}
	switch verb, args := args[0], args[1:]; verb {
	case "reply":
		if len(args) != 2 {
			ts.Fatalf("usage: model reply MATCH TEXT")
		}
		model.AddRule(agentcli.Rule{Match: args[0], Text: args[1]})
	case "replyfile":
		if len(args) != 2 {
			ts.Fatalf("usage: model replyfile MATCH FILE")
		}
		text, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		model.AddRule(agentcli.Rule{Match: args[0], Text: strings.TrimRight(string(text), "\n")})
	case "tool":
		if len(args) != 4 {
			ts.Fatalf("usage: model tool MATCH NAME JSON TEXT")
		}
		model.AddRule(agentcli.Rule{Match: args[0], Tool: args[1], Input: args[2], Text: args[3]})
	case "toolbody":
		// The body of the last request that carried a tool's result:
		// what the agent's model was told the tool returned.
		reqs := model.Requests()
		for i := len(reqs) - 1; i >= 0; i-- {
			if reqs[i].ToolUseID != "" {
				fmt.Fprintln(ts.Stdout(), string(reqs[i].Body))
				return
			}
		}
		ts.Fatalf("model toolbody: no request carried a tool's result; prompts so far:\n%s", prompts(model))
	case "shell":
		if len(args) != 3 {
			ts.Fatalf("usage: model shell MATCH COMMAND TEXT")
		}
		model.AddRule(agentcli.Rule{Match: args[0], Command: args[1], Text: args[2]})
	case "wait":
		fs := flag.NewFlagSet("model wait", flag.ContinueOnError)
		timeout := fs.Duration("timeout", 30*time.Second, "")
		tool := fs.Bool("tool", false, "")
		ts.Check(fs.Parse(args))
		if fs.NArg() != 1 && !*tool || fs.NArg() != 0 && *tool {
			ts.Fatalf("usage: model wait [-timeout D] TEXT | -tool")
		}
		want := fs.Arg(0)
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		r, err := model.WaitRequest(ctx, func(r agentcli.Request) bool {
			if *tool {
				return r.ToolUseID != ""
			}
			return r.API != "" && !r.Aside && r.ToolUseID == "" && strings.Contains(r.Prompt, want)
		})
		if err != nil {
			ts.Fatalf("model wait %q: %v; prompts so far:\n%s", want, err, prompts(model))
		}
		if *tool {
			fmt.Fprintln(ts.Stdout(), r.ToolUseID)
		} else {
			fmt.Fprintln(ts.Stdout(), r.Prompt)
		}
	case "prompts":
		fmt.Fprint(ts.Stdout(), prompts(model))
	case "hold":
		model.Hold()
	case "release":
		model.Release()
	default:
		ts.Fatalf("model: unknown verb %q (allowed: reply, replyfile, tool, toolbody, shell, wait, prompts, hold, release)", verb)
	}
}

// prompts lists what each model request asked, one quoted line each.
func prompts(model *agentcli.Model) string {
	var b strings.Builder
	for _, r := range model.Requests() {
		switch {
		case r.API == "":
			fmt.Fprintf(&b, "other %s %s\n", r.Method, r.Path)
		case r.Aside:
			fmt.Fprintf(&b, "aside\n")
		case r.ToolUseID != "":
			fmt.Fprintf(&b, "tool_result %s\n", r.ToolUseID)
		default:
			fmt.Fprintf(&b, "prompt %q\n", r.Prompt)
		}
	}
	return b.String()
}
