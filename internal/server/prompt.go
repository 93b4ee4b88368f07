package server

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/ui"
)

// promptTimeout bounds a verb run from the ":" prompt.
const promptTimeout = 30 * time.Second

// promptSupport is what every client's ":" prompt recalls and completes:
// the server's history, the CLI's verbs and the session's panes.
func (s *Server) promptSupport() ui.PromptSupport {
	return ui.PromptSupport{History: &s.history, Verbs: s.cfg().ui.Verbs, Panes: s.paneChoices}
}

// paneChoices lists every pane of the session, in id order, with what runs
// in it, for Tab after -t.
func (s *Server) paneChoices() (out []ui.Choice) {
	s.withFresh(func() { out = s.paneChoicesLocked() })
	return out
}

func (s *Server) paneChoicesLocked() []ui.Choice {
	ids := make([]int, 0, len(s.panes))
	for id := range s.panes {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]ui.Choice, len(ids))
	for i, id := range ids {
		out[i] = ui.Choice{Text: strconv.Itoa(id), Note: s.displayNameLocked(s.panes[id])}
	}
	return out
}

// runLine runs a CLI verb typed at the ":" prompt against this session. One
// line of output (or none) is a status-line message; more is shown in a
// view over the focused pane, as tmux shows a command's output. It runs on
// its own goroutine: a panic ends the verb only, and the person is told in
// the output view.
func (c *client) runLine(args []string) {
	if len(args) == 0 {
		return
	}
	defer c.s.recovered("melmux "+args[0]+" (typed at the prompt)", c.verbFailed)
	if h := c.s.hooks.prompt.Load(); h != nil {
		(*h)(args)
	}
	if c.s.self == "" {
		c.say("commands from the prompt need the melmux binary path")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), promptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.s.self, focusing(args)...)
	var focused int
	c.s.withLock(func() {
		focused = c.s.layout.Focused()
		// As a split from the keys: a verb's relative paths, and a pane
		// it opens, start from where the person works.
		cmd.Dir = c.s.startDirLocked(focused)
	})
	cmd.Env = append(append([]string(nil), c.s.env...), "MELMUX_SOCKET="+c.s.sock, fmt.Sprintf("MELMUX_PANE=%d", focused), "MELMUX_SESSION=")
	out, err := cmd.CombinedOutput()
	text := strings.TrimRight(string(out), " \t\r\n")
	if strings.Contains(text, "\n") {
		c.showOutput(text)
		return
	}
	msg := strings.TrimSpace(text)
	switch {
	case err != nil && msg == "":
		msg = err.Error()
	case msg == "":
		msg = "ok: " + strings.Join(args, " ")
	}
	c.say("%s", msg)
	c.invalidate()
}

// focusing is a verb line the person typed (or bound to a key), with
// --focus after a verb that opens a pane: a pane opened from the person's
// own keys takes the focus, one a script or an agent opens does not. It goes
// first, so a --focus=false they typed still wins.
func focusing(args []string) []string {
	i := verbIndex(args)
	if i >= len(args) || (args[i] != "open-pane" && args[i] != "spawn-agent") {
		return args
	}
	return slices.Concat(args[:i+1], []string{"--focus"}, args[i+1:])
}

// verbIndex is where the verb of a melmux command line is: after the -s
// options that may stand before it.
func verbIndex(args []string) int {
	i := 0
	for i < len(args) {
		switch a := args[i]; {
		case a == "-s" || a == "--s" || a == "--session":
			i += 2
		case strings.HasPrefix(a, "-s=") || strings.HasPrefix(a, "--session="):
			i++
		default:
			return i
		}
	}
	return i
}

// verbFailed tells the person at the prompt that the verb they typed failed
// inside the server, in the output view, which stays until dismissed (a
// status-line message could go unseen).
func (c *client) verbFailed(err error) {
	c.showOutput(err.Error() + "\n\nThe session goes on; the server's log has the details.")
}

// showOutput hands text to the client's loop, which owns its input state:
// the next frame opens it in a view (see takeOutput).
func (c *client) showOutput(text string) {
	locked(&c.msgMu, func() { c.output = text })
	c.invalidate()
}

// takeOutput opens output waiting from the prompt in a view over the
// focused pane of sc. It runs on the client's loop before the frame is
// decorated.
func (c *client) takeOutput(sc *ui.Scene) {
	text, diff := c.takeShown()
	shown := true
	switch {
	case diff != nil:
		shown = c.input.ShowDiff(diff, sc)
	case text != "":
		shown = c.input.ShowOutput(text, sc)
	}
	if !shown {
		c.say("no pane to show the output in")
	}
}

// takeShown is the output and the diff waiting for takeOutput, leaving
// none.
func (c *client) takeShown() (string, []ui.DiffLine) {
	c.msgMu.Lock()
	defer c.msgMu.Unlock()
	text, diff := c.output, c.diff
	c.output, c.diff = "", nil
	return text, diff
}
