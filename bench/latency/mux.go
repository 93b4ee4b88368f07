package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// mux drives one multiplexer from the outside, through its own CLI, the way
// a user's scripts would.
type mux interface {
	// name is how the tables call it.
	name() string
	// startPanes starts a session of the benchmark size whose one window
	// holds panes laid out as the steps say (see paneStep); the last pane
	// opened is focused.
	startPanes(ctx context.Context, steps []paneStep) error
	// startMany starts a session with n panes running cmd and says how they
	// were laid out.
	startMany(ctx context.Context, cmd []string, n int) (string, error)
	// screen is the focused pane's text, to see that its program is ready.
	screen(ctx context.Context) (string, error)
	// attachCmd is the command that attaches a client to the session.
	attachCmd() *exec.Cmd
	// serverPID is the server process's id.
	serverPID(ctx context.Context) (int, error)
	// stop ends the server and every pane it holds.
	stop() error
}

// paneStep opens one pane: the first step starts the session with cmd, each
// later one splits the pane of an earlier step (split, an index into the
// steps) to the right or down, halving it, as melmux's open-pane and tmux's
// split-window both do. The commands are shell words, run as argv.
type paneStep struct {
	cmd   []string
	split int    // index of the step whose pane is split; ignored for the first
	dir   string // "right" or "down"; ignored for the first
}

// runCmd runs a multiplexer CLI command with the benchmark's environment and
// returns its stdout; a failure carries its stderr.
func runCmd(ctx context.Context, env []string, argv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// melmuxDriver runs melmux sessions under a private XDG_RUNTIME_DIR; each
// start gets a fresh session name, so each its own server.
type melmuxDriver struct {
	bin        string
	env        []string
	cols, rows int
	seq        int
	session    string // the live session, "" when none
	focused    string // the pane id open-pane printed last
	pid        int    // the live session's server, once serverPID found it
}

func (m *melmuxDriver) name() string { return "melmux" }

func (m *melmuxDriver) run(ctx context.Context, args ...string) (string, error) {
	return runCmd(ctx, m.env, append([]string{m.bin, "-s", m.session}, args...)...)
}

func (m *melmuxDriver) newSession(ctx context.Context, cmd []string) error {
	m.seq++
	m.session = "bench" + strconv.Itoa(m.seq)
	m.focused, m.pid = "", 0
	args := append([]string{"new", "-d", "-x", strconv.Itoa(m.cols), "-y", strconv.Itoa(m.rows), "--"}, cmd...)
	if _, err := m.run(ctx, args...); err != nil {
		m.session = ""
		return err
	}
	return nil
}

func (m *melmuxDriver) startPanes(ctx context.Context, steps []paneStep) error {
	if err := m.newSession(ctx, steps[0].cmd); err != nil {
		return err
	}
	ids := []string{"1"} // melmux numbers a session's panes from 1
	for _, st := range steps[1:] {
		// --focus: the keys go to the pane opened last, as tmux's
		// split-window focuses the new pane (open-pane leaves the focus
		// where it was unless asked).
		out, err := m.run(ctx, append([]string{"open-pane", "-t", ids[st.split], "--layout", st.dir, "--focus", "--"}, st.cmd...)...)
		if err != nil {
			return err
		}
		ids = append(ids, strings.TrimSpace(out))
	}
	m.focused = ids[len(ids)-1]
	return nil
}

func (m *melmuxDriver) startMany(ctx context.Context, cmd []string, n int) (string, error) {
	if err := m.newSession(ctx, cmd); err != nil {
		return "", err
	}
	// Alternate the split direction, as a user tiling a screen would; melmux
	// turns a split that would make a pane too small into a tab.
	for i := 1; i < n; i++ {
		dir := "right"
		if i%2 == 0 {
			dir = "down"
		}
		if _, err := m.run(ctx, append([]string{"open-pane", "--layout", dir, "--"}, cmd...)...); err != nil {
			return "", err
		}
	}
	out, err := m.run(ctx, "list-panes", "--json")
	if err != nil {
		return "", err
	}
	var panes []struct {
		Tab  int `json:"tab"`
		Cols int `json:"cols"`
		Rows int `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &panes); err != nil {
		return "", fmt.Errorf("melmux list-panes --json: %w", err)
	}
	tabs := map[int]int{}
	for _, p := range panes {
		tabs[p.Tab]++
	}
	return fmt.Sprintf("%d panes in %d tabs (splits alternating right/down; too-small splits became tabs)", len(panes), len(tabs)), nil
}

func (m *melmuxDriver) screen(ctx context.Context) (string, error) {
	if m.focused == "" {
		return "", fmt.Errorf("melmux session %q: no pane opened yet", m.session)
	}
	return m.run(ctx, "read-pane", "-t", m.focused)
}

func (m *melmuxDriver) attachCmd() *exec.Cmd {
	cmd := exec.Command(m.bin, "-s", m.session, "attach")
	cmd.Env = m.env
	return cmd
}

func (m *melmuxDriver) serverPID(ctx context.Context) (int, error) {
	out, err := m.run(ctx, "ls", "--json")
	if err != nil {
		return 0, err
	}
	var list []struct {
		Name string `json:"name"`
		PID  int    `json:"pid"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return 0, fmt.Errorf("melmux ls --json: %w", err)
	}
	for _, s := range list {
		if s.Name == m.session && s.PID > 0 {
			m.pid = s.PID
			return s.PID, nil
		}
	}
	return 0, fmt.Errorf("melmux ls --json does not list session %q", m.session)
}

func (m *melmuxDriver) stop() error {
	if m.session == "" {
		return nil
	}
	_, err := m.run(context.Background(), "kill-server")
	m.session = ""
	if err != nil && m.pid > 0 && waitGone(m.pid, 3*time.Second) {
		// kill-server can lose its answer while the server does end; what
		// matters here is that the server is gone before the next run.
		return nil
	}
	return err
}

// waitGone reports whether process pid has ended within limit.
func waitGone(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tmuxDriver runs tmux servers on private sockets with no configuration
// file. Each start is a new server on a new socket in dir: kill-server
// returns before the old server has gone, and a new session on its socket
// could reach the dying server.
type tmuxDriver struct {
	bin        string
	dir        string
	seq        int
	sock       string
	env        []string
	cols, rows int
	live       bool
}

func (t *tmuxDriver) name() string { return "tmux" }

func (t *tmuxDriver) run(ctx context.Context, args ...string) (string, error) {
	return runCmd(ctx, t.env, append([]string{t.bin, "-S", t.sock, "-f", "/dev/null"}, args...)...)
}

// shellLine quotes argv for tmux, which runs a pane's command through the
// shell (SHELL=/bin/sh here).
func shellLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return "exec " + strings.Join(q, " ")
}

func (t *tmuxDriver) newSession(ctx context.Context, cmd []string) error {
	t.seq++
	t.sock = filepath.Join(t.dir, "tmux"+strconv.Itoa(t.seq)+".sock")
	_, err := t.run(ctx, "new-session", "-d", "-s", "bench", "-x", strconv.Itoa(t.cols), "-y", strconv.Itoa(t.rows), shellLine(cmd))
	if err == nil {
		t.live = true
	}
	return err
}

func (t *tmuxDriver) startPanes(ctx context.Context, steps []paneStep) error {
	if err := t.newSession(ctx, steps[0].cmd); err != nil {
		return err
	}
	ids := []string{"%0"} // a new server numbers its panes from %0
	for _, st := range steps[1:] {
		dir := "-h"
		if st.dir == "down" {
			dir = "-v"
		}
		out, err := t.run(ctx, "split-window", dir, "-P", "-F", "#{pane_id}", "-t", ids[st.split], shellLine(st.cmd))
		if err != nil {
			return err
		}
		ids = append(ids, strings.TrimSpace(out))
	}
	return nil
}

func (t *tmuxDriver) startMany(ctx context.Context, cmd []string, n int) (string, error) {
	if err := t.newSession(ctx, cmd); err != nil {
		return "", err
	}
	for i := 1; i < n; i++ {
		if _, err := t.run(ctx, "split-window", "-t", "bench", shellLine(cmd)); err != nil {
			return "", err
		}
		// Re-tile after each split so the next one has room, as tmux users do.
		if _, err := t.run(ctx, "select-layout", "-t", "bench", "tiled"); err != nil {
			return "", err
		}
	}
	out, err := t.run(ctx, "list-panes", "-s", "-t", "bench", "-F", "#{window_index}")
	if err != nil {
		return "", err
	}
	wins := map[string]int{}
	lines := strings.Fields(out)
	for _, w := range lines {
		wins[w]++
	}
	return fmt.Sprintf("%d panes in %d window (split-window, select-layout tiled)", len(lines), len(wins)), nil
}

func (t *tmuxDriver) screen(ctx context.Context) (string, error) {
	return t.run(ctx, "capture-pane", "-p", "-t", "bench")
}

func (t *tmuxDriver) attachCmd() *exec.Cmd {
	cmd := exec.Command(t.bin, "-S", t.sock, "-f", "/dev/null", "attach-session", "-t", "bench")
	cmd.Env = t.env
	return cmd
}

func (t *tmuxDriver) serverPID(ctx context.Context) (int, error) {
	out, err := t.run(ctx, "display-message", "-p", "-t", "bench", "#{pid}")
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("tmux display-message #{pid} gave %q, not a process id", strings.TrimSpace(out))
	}
	return pid, nil
}

func (t *tmuxDriver) stop() error {
	if !t.live {
		return nil
	}
	t.live = false
	_, err := t.run(context.Background(), "kill-server")
	return err
}
