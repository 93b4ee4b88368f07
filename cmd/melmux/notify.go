package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/transcript"
)

// maxHookPayload bounds the hook's JSON read from stdin.
const maxHookPayload = 1 << 20

// maxNotifyMessage is how much of a message is sent, in runes (a Stop hook
// carries the agent's whole last reply).
const maxNotifyMessage = 500

func init() {
	cli.Register(&cli.Verb{
		Name:  "notify",
		Usage: "[-t PANE] --state working|waiting|idle [--message M] [--event NAME] [--kind KIND] | --from claude | --from gemini | --from codex JSON",
		Summary: "report an agent's state for the pane it runs in, from its own hooks (Claude Code's or Gemini CLI's hooks read from stdin " +
			"with --from claude or --from gemini, Codex's notify program with --from codex)",
		Run: func(g *cli.Globals, args []string) error {
			err := runNotify(g, args)
			if !fromGemini(args) {
				return err
			}
			// Gemini CLI takes a hook's exit status 2 as a block (the
			// person's prompt dropped, or the turn redone with stderr as
			// the prompt), and words on stderr with nothing on stdout as
			// a message to show: a failure exits 1 (a warning it shows),
			// success prints an empty JSON object.
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			if err != nil {
				var ue *cli.UsageError
				if errors.As(err, &ue) {
					return &cli.ExitError{Code: 1, Msg: ue.Msg}
				}
				return &cli.ExitError{Code: 1, Msg: err.Error()}
			}
			fmt.Fprintln(g.Stdout, "{}")
			return nil
		},
	})
}

// fromGemini tells whether the command line reads Gemini CLI's hook.
func fromGemini(args []string) bool {
	for i, a := range args {
		switch a {
		case "--from=gemini", "-from=gemini":
			return true
		case "--from", "-from":
			if i+1 < len(args) && args[i+1] == "gemini" {
				return true
			}
		}
	}
	return false
}

// runNotify is the verb; Run fits its outcome to what Gemini CLI reads.
func runNotify(g *cli.Globals, args []string) error {
	fs := cli.NewFlags(g, "notify")
	target := fs.String("t", "", "the pane (default: $MELMUX_PANE, the pane this runs in)")
	state := fs.String("state", "", "working, waiting (on a person) or idle (the turn is done)")
	message := fs.String("message", "", "what the agent says or asks")
	event := fs.String("event", "", "the hook's event, shown as the evidence")
	kind := fs.String("kind", "", "the agent's kind (claude, codex, gemini, ...)")
	from := fs.String("from", "", "read the report from an agent's own hook: claude or gemini (its hook JSON on stdin) or codex (its notify JSON as the argument)")
	chain := fs.String("chain", "", "with --from codex: the user's own notify program (a JSON array), run after with the same payload")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	p := proto.NotifyParams{State: *state, Message: *message, Event: *event, Kind: *kind}
	switch *from {
	case "":
		if fs.NArg() > 0 {
			return cli.Usagef("notify takes no arguments besides flags (a payload goes with --from codex), got %q", strings.Join(fs.Args(), " "))
		}
		if p.State == "" {
			return cli.Usagef("notify: --state is required: working, waiting or idle (or --from claude|gemini|codex to read an agent's hook)")
		}
	case "claude", "gemini":
		agent := map[string]string{"claude": "Claude Code", "gemini": "Gemini CLI"}[*from]
		if fs.NArg() > 0 {
			return cli.Usagef("notify --from %s reads %s's hook JSON on stdin and takes no arguments, got %q", *from, agent, strings.Join(fs.Args(), " "))
		}
		raw, err := io.ReadAll(io.LimitReader(g.Stdin, maxHookPayload+1))
		if err != nil {
			return fmt.Errorf("notify: reading the hook's JSON from stdin: %w", err)
		}
		if len(raw) > maxHookPayload {
			return cli.Usagef("notify --from %s: the hook's JSON on stdin is over %d bytes", *from, maxHookPayload)
		}
		read := fromClaudeHook
		if *from == "gemini" {
			read = fromGeminiHook
		}
		skip, err := read(raw, &p)
		if err != nil || skip {
			return err
		}
	case "codex":
		if fs.NArg() != 1 {
			return cli.Usagef("notify --from codex takes Codex's notify JSON as its one argument (notify = [\"melmux\", \"notify\", \"--from\", \"codex\"] in Codex's config.toml), got %d arguments", fs.NArg())
		}
		if *chain != "" {
			// Whatever melmux makes of it, the user's own
			// program gets the notification too.
			defer runChain(g, *chain, fs.Arg(0))
		}
		skip, err := fromCodexNotify([]byte(fs.Arg(0)), &p)
		if err != nil || skip {
			return err
		}
	default:
		return cli.Usagef("notify: --from %q is not claude, gemini or codex", *from)
	}
	if *target == "" && cli.EnvPane(g) == 0 {
		// A hook set up for every session runs outside melmux too:
		// say so, but do not fail the agent's hook.
		fmt.Fprintln(g.Stderr, "melmux notify: not in a melmux pane ($MELMUX_PANE is not set) and no -t PANE: nothing reported")
		return nil
	}
	id, err := paneFlag(g, "notify", *target)
	if err != nil {
		return err
	}
	p.Pane = id
	p.Message = clipMessage(p.Message)
	if len(p.Reply) > maxHookReply {
		p.Reply = strings.ToValidUTF8(p.Reply[:maxHookReply], "")
	}
	var res proto.NotifyResult
	if err := call(g, "notify", p, &res); err != nil {
		return err
	}
	if res.Decision != "" && *from == "claude" {
		// Claude Code reads a PermissionRequest hook's decision
		// from its output.
		out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PermissionRequest",
			"decision":      permissionDecision(res),
		}})
		fmt.Fprintln(g.Stdout, string(out))
	}
	return nil
}

// chainTimeout bounds the user's own notify program run after melmux's.
const chainTimeout = 30 * time.Second

// runChain runs the notify program argv (a JSON array) with payload as its
// last argument, as Codex would have; a failure is told on stderr, not
// returned, so melmux's own report stands.
func runChain(g *cli.Globals, argv, payload string) {
	var cmd []string
	if err := json.Unmarshal([]byte(argv), &cmd); err != nil || len(cmd) == 0 {
		fmt.Fprintf(g.Stderr, "melmux notify: --chain %q is not a JSON array of the program and its arguments\n", argv)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), chainTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, cmd[0], append(cmd[1:], payload)...)
	c.Stdout, c.Stderr = g.Stdout, g.Stderr
	if err := c.Run(); err != nil {
		fmt.Fprintf(g.Stderr, "melmux notify: the chained notify program %s: %v\n", cmd[0], err)
	}
}

// maxHookReply is how much of a turn's last message is sent (the server's
// bound).
const maxHookReply = 256 << 10

// permissionDecision is the decision object of Claude Code's
// PermissionRequest hook output for the policy's decision.
func permissionDecision(res proto.NotifyResult) map[string]any {
	if res.Decision == "allow" {
		return map[string]any{"behavior": "allow"}
	}
	why := "denied by melmux's policy"
	if res.Rule != "" {
		why += " (rule " + res.Rule + ")"
	}
	return map[string]any{"behavior": "deny", "message": why}
}

// clipMessage makes a message short enough to send: one paragraph of at
// most maxNotifyMessage runes.
func clipMessage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= maxNotifyMessage {
		return s
	}
	return string([]rune(s)[:maxNotifyMessage-1]) + "…"
}

// claudeHook is what Claude Code gives a hook command on stdin (the fields
// melmux reads).
type claudeHook struct {
	Event            string          `json:"hook_event_name"`
	Message          string          `json:"message"`
	NotificationType string          `json:"notification_type"`
	Prompt           string          `json:"prompt"`
	ToolName         string          `json:"tool_name"`
	ToolInput        json.RawMessage `json:"tool_input"`
	LastMessage      string          `json:"last_assistant_message"`
}

// toolInput is what a tool call wants, in one string: the command of a
// shell tool, the path of a file tool, else its input as JSON.
func toolInput(raw json.RawMessage) string {
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil {
		return strings.TrimSpace(string(raw))
	}
	for _, k := range []string{"command", "cmd", "file_path", "path", "url", "pattern"} {
		if v, ok := in[k].(string); ok {
			return v
		}
	}
	if len(raw) == 0 {
		return ""
	}
	return string(raw)
}

// fromClaudeHook fills p from Claude Code's hook JSON: the state its event
// means (unless --state gave one), the event and message. skip is set for
// an event that says nothing of the state (a subagent stopping, a login).
func fromClaudeHook(raw []byte, p *proto.NotifyParams) (skip bool, err error) {
	var h claudeHook
	if err := json.Unmarshal(raw, &h); err != nil {
		return false, cli.Usagef("notify --from claude: stdin is not Claude Code's hook JSON: %v", err)
	}
	state, event, msg := "", h.Event, ""
	switch h.Event {
	case "UserPromptSubmit":
		state, msg = "working", h.Prompt
	case "PreToolUse", "PostToolUse":
		state = "working"
		if h.ToolName != "" {
			event += " (" + h.ToolName + ")"
		}
	case "Notification":
		event += " (" + h.NotificationType + ")"
		switch h.NotificationType {
		case "permission_prompt", "elicitation_dialog", "":
			state = "waiting"
		case "idle_prompt":
			state = "idle"
		default:
			return true, nil // auth_success and the like: no state
		}
		if h.NotificationType == "" {
			event = h.Event
		}
		msg = h.Message
	case "PermissionRequest":
		// Before Claude Code draws its question: the policy may answer
		// it through this hook's output.
		state, msg = "waiting", "approve "+h.ToolName
		event += " (" + h.ToolName + ")"
		p.Tool, p.Input, p.Decide = h.ToolName, toolInput(h.ToolInput), true
		if p.Input != "" {
			msg += ": " + p.Input
		}
	case "Stop":
		state, msg = "idle", h.LastMessage
		p.Reply = h.LastMessage
	case "SessionStart":
		state = "idle"
	case "SubagentStop", "SessionEnd", "PreCompact":
		return true, nil
	case "":
		return false, cli.Usagef("notify --from claude: the JSON on stdin has no hook_event_name; is this a Claude Code hook?")
	default:
		if p.State == "" {
			return false, cli.Usagef("notify --from claude: hook event %q says no state (melmux maps UserPromptSubmit, PreToolUse, PostToolUse, Notification, Stop, SessionStart); give --state", h.Event)
		}
	}
	fill(p, state, event, msg, "claude")
	return false, nil
}

// geminiHook is what Gemini CLI gives a hook command on stdin (the fields
// melmux reads).
type geminiHook struct {
	Event            string          `json:"hook_event_name"`
	TranscriptPath   string          `json:"transcript_path"`
	Prompt           string          `json:"prompt"`
	Response         string          `json:"prompt_response"`
	NotificationType string          `json:"notification_type"`
	Message          string          `json:"message"`
	Details          json.RawMessage `json:"details"`
	ToolName         string          `json:"tool_name"`
}

// geminiAsks is what a Gemini CLI permission question is about, from its
// Notification's details: the command, the file, or the question put.
func geminiAsks(raw json.RawMessage) string {
	var d struct {
		Command  string `json:"command"`
		FilePath string `json:"filePath"`
		Prompt   string `json:"prompt"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return ""
	}
	return cmp.Or(d.Command, d.FilePath, d.Prompt)
}

// geminiNoResponse is what Gemini CLI's AfterAgent says for a turn with no
// text.
const geminiNoResponse = "[no response text]"

// fromGeminiHook fills p from Gemini CLI's hook JSON, as fromClaudeHook
// does from Claude Code's. Its Notification hook cannot answer a
// permission (Gemini CLI ignores what it prints), so a question is only
// reported, not decided.
func fromGeminiHook(raw []byte, p *proto.NotifyParams) (skip bool, err error) {
	var h geminiHook
	if err := json.Unmarshal(raw, &h); err != nil {
		return false, cli.Usagef("notify --from gemini: stdin is not Gemini CLI's hook JSON: %v", err)
	}
	state, event, msg := "", h.Event, ""
	switch h.Event {
	case "BeforeAgent":
		state, msg = "working", h.Prompt
	case "BeforeTool", "AfterTool":
		state = "working"
		if h.ToolName != "" {
			event += " (" + h.ToolName + ")"
		}
	case "AfterAgent":
		state = "idle"
		p.Reply = geminiReply(h)
		msg = p.Reply
	case "Notification":
		if h.NotificationType != "ToolPermission" {
			return true, nil
		}
		// Gemini CLI runs this hook before it draws the question, and
		// waits for it.
		state, event, msg = "waiting", event+" ("+h.NotificationType+")", h.Message
		if in := geminiAsks(h.Details); in != "" {
			msg += ": " + in
		}
	case "SessionStart":
		state = "idle"
	case "SessionEnd", "PreCompress", "BeforeModel", "AfterModel", "BeforeToolSelection":
		return true, nil
	case "":
		return false, cli.Usagef("notify --from gemini: the JSON on stdin has no hook_event_name; is this a Gemini CLI hook?")
	default:
		if p.State == "" {
			return false, cli.Usagef("notify --from gemini: hook event %q says no state (melmux maps BeforeAgent, BeforeTool, AfterTool, AfterAgent, Notification, SessionStart); give --state", h.Event)
		}
	}
	fill(p, state, event, msg, "gemini")
	return false, nil
}

// geminiReply is the whole reply of the turn an AfterAgent hook ends. Its
// prompt_response joins the streamed pieces of the model's answer with
// spaces (Gemini CLI 0.61: "Hello from the scripted model.  the scrip ted
// model." for three pieces), so the reply is read from the session file the
// hook names, once that shows the turn done and its last message is in
// prompt_response but for white space (not an older turn's, were the file
// behind); prompt_response is the last resort.
func geminiReply(h geminiHook) string {
	if h.TranscriptPath != "" {
		r, err := transcript.Last("gemini", h.TranscriptPath)
		if err == nil && r.Done && r.Text != "" && strings.Contains(noSpace(h.Response), noSpace(r.Text)) {
			return r.Text
		}
	}
	if h.Response == geminiNoResponse {
		return ""
	}
	return h.Response
}

// noSpace is s without its white space.
func noSpace(s string) string { return strings.Join(strings.Fields(s), "") }

// codexNotify is what Codex passes its notify program (the fields melmux
// reads).
type codexNotify struct {
	Type        string `json:"type"`
	LastMessage string `json:"last-assistant-message"`
}

// fromCodexNotify fills p from Codex's notify JSON. A turn whose last
// message is a JSON object naming a title is Codex naming its thread on
// the side, not the end of the person's turn: skipped.
func fromCodexNotify(raw []byte, p *proto.NotifyParams) (skip bool, err error) {
	var n codexNotify
	if err := json.Unmarshal(raw, &n); err != nil {
		return false, cli.Usagef("notify --from codex: the argument is not Codex's notify JSON: %v", err)
	}
	state := ""
	switch n.Type {
	case "agent-turn-complete":
		var title struct {
			Title *string `json:"title"`
		}
		if json.Unmarshal([]byte(n.LastMessage), &title) == nil && title.Title != nil {
			return true, nil
		}
		state = "idle"
		p.Reply = n.LastMessage
	case "approval-requested":
		state = "waiting"
	case "":
		return false, cli.Usagef("notify --from codex: the JSON has no type; is this Codex's notify payload?")
	default:
		if p.State == "" {
			return false, cli.Usagef("notify --from codex: notification %q says no state (melmux maps agent-turn-complete, approval-requested); give --state", n.Type)
		}
	}
	fill(p, state, n.Type, n.LastMessage, "codex")
	return false, nil
}

// fill sets what the flags left empty.
func fill(p *proto.NotifyParams, state, event, msg, kind string) {
	if p.State == "" {
		p.State = state
	}
	if p.Event == "" {
		p.Event = event
	}
	if p.Message == "" {
		p.Message = msg
	}
	if p.Kind == "" {
		p.Kind = kind
	}
}
