// Command play runs every stream of bench/corpus through one headless
// melmux pane and one headless tmux pane, at the size the stream was
// recorded at, several rounds interleaved (melmux first in odd rounds,
// tmux first in even ones), and prints per stream the medians of each
// server's CPU time and of the wall time, with the ratios tmux/melmux:
// above 1, melmux did the same work in less time.
//
// The recordings are seconds of real use, tens of KB each; a stream is
// played as its bytes repeated N times, N = ceil(-mb megabytes / its size),
// so every stream is about the same measurable size. After the last
// repetition comes RIS (ESC c) and a marker line on the bottom row (tmux's
// remain-on-exit scrolls the screen once to say the pane is dead): the clock stops when the
// pane's process has ended and the pane shows the marker (melmux: wait
// --exit, then read-pane, which must show it at once; tmux: wait-for, then
// capture-pane until it does, as bench/pane_throughput.sh does).
//
// The pane runs `stty raw -echo` first, so the bytes reach the terminal as
// they were recorded (no ONLCR added, nothing echoed), and drains its input:
// the multiplexers answer the recordings' terminal queries, and those
// answers must not fill the tty and stall the writer.
//
// The pane's script waits on a FIFO before it plays the stream; the clocks
// start when the bench opens it, so a session's start is in neither figure.
// Server CPU is the run time summed over the server's threads
// (/proc/PID/task/TID/schedstat): melmux's own daemon, tmux's
// one shared server (kept up with an idle session, as a user's would be),
// each as a difference. Both get history-limit 10000 (melmux's default) and keep a
// dead pane (remain-on-exit).
//
// With -mode attached (or both, the default) each stream is played again
// with a client attached and drawing the pane: melmux's own `attach`, or
// `tmux attach-session`, on the slave side of a PTY this program owns and
// drains (COLS x ROWS+2 for melmux, its status row and the pane's top
// border; COLS x ROWS+1 for tmux's status line). The clocks start once the
// client has drawn its first frame and gone quiet, and stop when the client
// has drawn the marker's first letter (non-ASCII, in no stream), then the
// same checks run. Attached CPU is the server's and the client's together
// (tmux's client passes its terminal to the server and does nothing).
//
// Usage: go run ./bench/corpus/play [-runs 3] [-mb 4] [-mode both|headless|attached] [-only NAME,...] [-melmux BIN] [-tmux BIN] [-keep]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/melmux/melmux/bench/corpus"
	"github.com/melmux/melmux/bench/internal/muxenv"
)

const (
	history = 10000
	marker  = "ЖΩЖ END OF CORPUS STREAM"
	// markLetter is the marker's first letter, which an attached client's
	// drawing holds only once the marker is drawn.
	markLetter = "Ж"
	// paneCmd plays $1 into the pane once a line comes through the FIFO
	// $2: raw tty, input drained.
	paneCmd = `stty raw -echo; cat </dev/tty >/dev/null & d=$!; read _ <"$2"; cat "$1"; kill $d`
)

type config struct {
	modes   []string
	runs    int
	mb      float64
	only    []string
	melmux  string
	tmux    string
	keep    bool
	timeout time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	var c config
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	fs.IntVar(&c.runs, "runs", 3, "rounds; the table gives medians")
	fs.Float64Var(&c.mb, "mb", 4, "megabytes each stream is repeated up to")
	only := fs.String("only", "", "streams to play, comma-separated (a name or its start: vim, vim_80x24, shape-)")
	fs.StringVar(&c.melmux, "melmux", "", "melmux binary, melmux-server beside it (default: build this module's)")
	fs.StringVar(&c.tmux, "tmux", "tmux", "tmux binary")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory")
	mode := fs.String("mode", "both", "headless, attached (a client drawing the pane) or both")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "longest one stream may take")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		os.Exit(2)
	}
	if c.runs < 1 || c.mb <= 0 {
		fmt.Fprintln(os.Stderr, "play: -runs and -mb must be positive")
		os.Exit(2)
	}
	switch *mode {
	case "both":
		c.modes = []string{"headless", "attached"}
	case "headless", "attached":
		c.modes = []string{*mode}
	default:
		fmt.Fprintf(os.Stderr, "play: -mode %q: want headless, attached or both\n", *mode)
		os.Exit(2)
	}
	for _, o := range strings.Split(*only, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.only = append(c.only, o)
		}
	}
	if err := play(ctx, c, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "play:", err)
		os.Exit(1)
	}
}

type result struct{ wall, cpu time.Duration }

type prepared struct {
	corpus.Stream
	file        string
	unit, total int
	reps        int
}

func play(ctx context.Context, c config, stdout, stderr io.Writer) error {
	all, err := corpus.All()
	if err != nil {
		return err
	}
	var streams []corpus.Stream
	for _, s := range all {
		if len(c.only) == 0 || slices.ContainsFunc(c.only, func(o string) bool { return strings.HasPrefix(s.Name, o) }) {
			streams = append(streams, s)
		}
	}
	if len(streams) == 0 {
		return fmt.Errorf("-only %s: no such stream", strings.Join(c.only, ","))
	}
	work, err := muxenv.Work("melmux-corpus.")
	if err != nil {
		return err
	}
	defer muxenv.Done(work, c.keep, stderr)
	tmuxBin, err := exec.LookPath(c.tmux)
	if err != nil {
		return fmt.Errorf("tmux %q: %w", c.tmux, err)
	}
	melmuxBin, commit := c.melmux, "unknown"
	if melmuxBin == "" {
		if melmuxBin, _, commit, err = muxenv.BuildMelmux(ctx, work); err != nil {
			return err
		}
	}
	env := muxenv.Env(work)
	script := filepath.Join(work, "pane.sh")
	if err := os.WriteFile(script, []byte(paneCmd+"\n"), 0o644); err != nil {
		return err
	}
	var ps []prepared
	for _, s := range streams {
		b, err := s.Bytes()
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(markLetter)) {
			return fmt.Errorf("%s holds the marker's first letter %s", s.Name, markLetter)
		}
		reps := max(1, int((c.mb*1e6+float64(len(b))-1)/float64(len(b))))
		full := append(bytes.Repeat(b, reps), "\x1bc\x1b[999;1H"+marker+"\r\n"...)
		file := filepath.Join(work, s.Name+".tty")
		if err := os.WriteFile(file, full, 0o644); err != nil {
			return err
		}
		ps = append(ps, prepared{Stream: s, file: file, unit: len(b), total: len(full), reps: reps})
	}

	t := &tmux{bin: tmuxBin, sock: filepath.Join(work, "tmux.sock"), env: env, conf: filepath.Join(work, "tmux.conf")}
	if err := os.WriteFile(t.conf, []byte(fmt.Sprintf("set -g history-limit %d\nset -g remain-on-exit on\n", history)), 0o644); err != nil {
		return err
	}
	if err := t.start(); err != nil {
		return err
	}
	defer t.run("kill-server")
	m := &melmux{bin: melmuxBin, env: env, run: filepath.Join(work, "run")}
	if slices.Contains(c.modes, "attached") {
		// Attached clients need a terminal type they can draw with.
		m.env = append(slices.Clone(env), "TERM=xterm-256color")
		t.env = m.env
	}

	load0 := muxenv.LoadAvg()
	fmt.Fprintf(stderr, "machine: %d cores, load average %s; melmux %s, %s\n", runtime.NumCPU(), load0, commit, muxenv.TmuxVersion(tmuxBin))
	res := map[string]map[string][]result{}
	failures := 0
	for round := 1; round <= c.runs; round++ {
		order := []string{"melmux", "tmux"}
		if round%2 == 0 {
			order = []string{"tmux", "melmux"}
		}
		for _, p := range ps {
			if res[p.Name] == nil {
				res[p.Name] = map[string][]result{}
			}
			for _, mode := range c.modes {
				attached := mode == "attached"
				for _, mux := range order {
					if err := ctx.Err(); err != nil {
						return err
					}
					session := fmt.Sprintf("c%d-%s-%s", round, mode[:1], strings.ReplaceAll(p.Name, "_", "-"))
					var r result
					var err error
					if mux == "melmux" {
						r, err = m.once(ctx, session, script, p, c.timeout, attached)
					} else {
						r, err = t.once(ctx, session, script, p, c.timeout, attached)
					}
					var ce checkError
					if errors.As(err, &ce) {
						fmt.Fprintf(stderr, "CORRECTNESS: %s %s %s round %d: %v\n", mux, mode, p.Name, round, err)
						failures++
					} else if err != nil {
						return fmt.Errorf("%s %s, %s, round %d: %w", mux, mode, p.Name, round, err)
					}
					res[p.Name][mux+"/"+mode] = append(res[p.Name][mux+"/"+mode], r)
					fmt.Fprintf(stderr, "round %d %-6s %-8s %-22s wall %7.3f s  CPU %7.3f s\n", round, mux, mode, p.Name, r.wall.Seconds(), r.cpu.Seconds())
				}
			}
		}
	}
	load1 := muxenv.LoadAvg()

	fmt.Fprintf(stdout, "\nmelmux %s beside %s, %d rounds (medians), each stream repeated to about %g MB; load average %s before, %s after; %d cores\n\n",
		commit, muxenv.TmuxVersion(tmuxBin), c.runs, c.mb, load0, load1, runtime.NumCPU())
	head, rule := "| stream | size | played |", "|---|---|---|"
	for _, mode := range c.modes {
		head += fmt.Sprintf(" %[1]s: melmux CPU / wall | %[1]s: tmux CPU / wall | %[1]s: tmux/melmux CPU / wall |", mode)
		rule += "---|---|---|"
	}
	fmt.Fprintln(stdout, head)
	fmt.Fprintln(stdout, rule)
	for _, p := range ps {
		row := fmt.Sprintf("| %s | %s | x%d = %.1f MB |", p.Name, kb(p.unit), p.reps, float64(p.total)/1e6)
		for _, mode := range c.modes {
			mm, tt := med(res[p.Name]["melmux/"+mode]), med(res[p.Name]["tmux/"+mode])
			row += fmt.Sprintf(" %.3f / %.3f s | %.3f / %.3f s | **%s** / %s |", mm.cpu.Seconds(), mm.wall.Seconds(), tt.cpu.Seconds(), tt.wall.Seconds(),
				ratio(tt.cpu, mm.cpu), ratio(tt.wall, mm.wall))
		}
		fmt.Fprintln(stdout, row)
	}
	if failures > 0 {
		return fmt.Errorf("%d correctness check(s) failed (see CORRECTNESS above)", failures)
	}
	return nil
}

type checkError struct{ msg string }

func (e checkError) Error() string { return e.msg }

func kb(n int) string {
	if n >= 1e6 {
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.0f KB", float64(n)/1e3)
}

func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a.Seconds()/b.Seconds())
}

// med is the median wall time and the median CPU time, taken separately.
func med(rs []result) result {
	var w, c []time.Duration
	for _, r := range rs {
		w, c = append(w, r.wall), append(c, r.cpu)
	}
	pick := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		if len(d)%2 == 1 {
			return d[len(d)/2]
		}
		return (d[len(d)/2-1] + d[len(d)/2]) / 2
	}
	return result{wall: pick(w), cpu: pick(c)}
}

// showsMarker is whether a screen dump has the marker as one of its lines.
func showsMarker(dump string) bool {
	for _, l := range strings.Split(dump, "\n") {
		if strings.TrimRight(l, " ") == marker {
			return true
		}
	}
	return false
}

type melmux struct {
	bin string
	env []string
	run string // XDG_RUNTIME_DIR
}

func (m *melmux) cmd(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, m.bin, args...)
	cmd.Env = m.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("melmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (m *melmux) once(ctx context.Context, session, script string, p prepared, timeout time.Duration, attached bool) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fifo, err := newFIFO(p.file)
	if err != nil {
		return result{}, err
	}
	defer os.Remove(fifo)
	if _, err := m.cmd(ctx, "-s", session, "new", "-d", "-x", strconv.Itoa(p.Cols), "-y", strconv.Itoa(p.Rows+2), "--", "sh", script, p.file, fifo); err != nil {
		return result{}, err
	}
	pid, err := m.serverPID(session)
	if err != nil {
		return result{}, err
	}
	defer m.kill(session, pid)
	var term *muxenv.Terminal
	if attached {
		cmd := exec.Command(m.bin, "-s", session, "attach")
		cmd.Env = m.env
		if term, err = muxenv.StartTerminal(cmd, p.Cols, p.Rows+2, markLetter); err != nil {
			return result{}, err
		}
		defer func() {
			m.kill(session, pid) // the server goes first, so the client leaves by itself
			term.Close()
		}()
		if err := term.Settle(ctx, 10*time.Second); err != nil {
			return result{}, err
		}
	}
	c0, err := cpuOf(pid, term)
	if err != nil {
		return result{}, err
	}
	t0 := time.Now()
	if err := kick(fifo); err != nil {
		return result{}, err
	}
	var drawn result
	if term != nil {
		at, err := term.Await(ctx, timeout)
		if err != nil {
			return result{}, err
		}
		c1, err := cpuOf(pid, term)
		if err != nil {
			return result{}, err
		}
		drawn = result{wall: at.Sub(t0), cpu: c1 - c0}
	}
	if _, err := m.cmd(ctx, "-s", session, "wait", "-t", "1", "--exit", "--timeout", timeout.String()); err != nil {
		return result{}, err
	}
	var check error
	for tries := 1; ; tries++ {
		out, err := m.cmd(ctx, "-s", session, "read-pane", "-t", "1")
		if err == nil && showsMarker(out) {
			if tries > 1 {
				check = checkError{fmt.Sprintf("wait --exit returned before the emulator had the marker (read-pane needed %d tries)", tries)}
			}
			break
		}
		if ctx.Err() != nil {
			return result{}, fmt.Errorf("the marker never showed: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	r := result{wall: time.Since(t0)}
	c1, err := muxenv.CPUTime(pid)
	if err != nil {
		return r, err
	}
	r.cpu = c1 - c0
	if term != nil {
		r = drawn
	}
	out, err := m.cmd(ctx, "-s", session, "list-panes", "--json")
	if err != nil {
		return r, err
	}
	if want := fmt.Sprintf(`"cols": %d,`, p.Cols); !strings.Contains(out, want) || !strings.Contains(out, fmt.Sprintf(`"rows": %d`, p.Rows)) {
		check = checkError{fmt.Sprintf("pane is not %dx%d: %s", p.Cols, p.Rows, out)}
	}
	return r, check
}

// serverPID finds the daemon of session by its command line.
func (m *melmux) serverPID(session string) (int, error) {
	want := []byte("__serve\x00-s\x00" + session + "\x00--socket\x00" + m.run + "/")
	ents, _ := os.ReadDir("/proc")
	var found []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, want) {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("want the one melmux server of session %s, found %v", session, found)
	}
	return found[0], nil
}

func (m *melmux) kill(session string, pid int) {
	m.cmd(context.Background(), "-s", session, "kill-server")
	for i := 0; i < 500; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

type tmux struct {
	bin, sock, conf string
	env             []string
	pid             int
}

func (t *tmux) run(args ...string) (string, error) {
	cmd := exec.Command(t.bin, append([]string{"-S", t.sock}, args...)...)
	cmd.Env = t.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (t *tmux) start() error {
	if _, err := t.run("-f", t.conf, "new-session", "-d", "-s", "keepalive", "-x", "20", "-y", "5", "sleep 100000"); err != nil {
		return err
	}
	out, err := t.run("display-message", "-p", "#{pid}")
	if err != nil {
		return err
	}
	t.pid, err = strconv.Atoi(strings.TrimSpace(out))
	return err
}

func (t *tmux) once(ctx context.Context, session, script string, p prepared, timeout time.Duration, attached bool) (result, error) {
	deadline := time.Now().Add(timeout)
	fifo, err := newFIFO(p.file)
	if err != nil {
		return result{}, err
	}
	defer os.Remove(fifo)
	cmd := fmt.Sprintf("sh '%s' '%s' '%s'; '%s' -S '%s' wait-for -S '%s'", script, p.file, fifo, t.bin, t.sock, session)
	if _, err := t.run("new-session", "-d", "-s", session, "-x", strconv.Itoa(p.Cols), "-y", strconv.Itoa(p.Rows), cmd); err != nil {
		return result{}, err
	}
	defer t.run("kill-session", "-t", "="+session)
	var term *muxenv.Terminal
	if attached {
		cmd := exec.Command(t.bin, "-S", t.sock, "attach-session", "-t", "="+session)
		cmd.Env = t.env
		var err error
		if term, err = muxenv.StartTerminal(cmd, p.Cols, p.Rows+1, markLetter); err != nil {
			return result{}, err
		}
		defer func() {
			t.run("kill-session", "-t", "="+session) // the client leaves with its session
			term.Close()
		}()
		if err := term.Settle(ctx, 10*time.Second); err != nil {
			return result{}, err
		}
	}
	c0, err := cpuOf(t.pid, term)
	if err != nil {
		return result{}, err
	}
	t0 := time.Now()
	if err := kick(fifo); err != nil {
		return result{}, err
	}
	var drawn result
	if term != nil {
		at, err := term.Await(ctx, timeout)
		if err != nil {
			return result{}, err
		}
		c1, err := cpuOf(t.pid, term)
		if err != nil {
			return result{}, err
		}
		drawn = result{wall: at.Sub(t0), cpu: c1 - c0}
	}
	if _, err := t.run("wait-for", session); err != nil {
		return result{}, err
	}
	// The server may still be reading the PTY's tail after the command
	// ended.
	deadline = time.Now().Add(time.Minute)
	for {
		out, err := t.run("capture-pane", "-p", "-t", "="+session+":")
		if err == nil && showsMarker(out) {
			break
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return result{}, fmt.Errorf("the marker never showed: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	r := result{wall: time.Since(t0)}
	c1, err := muxenv.CPUTime(t.pid)
	if err != nil {
		return r, err
	}
	r.cpu = c1 - c0
	if term != nil {
		r = drawn
	}
	out, err := t.run("display-message", "-p", "-t", "="+session+":", "#{pane_width}x#{pane_height}")
	if err != nil {
		return r, err
	}
	if got, want := strings.TrimSpace(out), fmt.Sprintf("%dx%d", p.Cols, p.Rows); got != want {
		return r, checkError{fmt.Sprintf("pane is %s, want %s", got, want)}
	}
	return r, nil
}

// cpuOf is the CPU time of the server pid, and of the attached client
// when there is one.
func cpuOf(pid int, term *muxenv.Terminal) (time.Duration, error) {
	c, err := muxenv.CPUTime(pid)
	if err != nil || term == nil {
		return c, err
	}
	cc, err := muxenv.CPUTime(term.Cmd.Process.Pid)
	return c + cc, err
}

// newFIFO makes the FIFO a pane waits on, beside the stream's file.
func newFIFO(file string) (string, error) {
	fifo := file + ".go"
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return "", fmt.Errorf("mkfifo: %w", err)
	}
	return fifo, nil
}

// kick lets the pane's script go: opening the FIFO waits for its reader.
func kick(fifo string) error {
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString("go\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
