package main

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/melmux/melmux/bench/internal/muxenv"
	"github.com/melmux/melmux/bench/streams"
)

const (
	paneCols = 200
	paneRows = 50
	history  = 10000 // melmux's default scrollback; tmux is given the same
	// marker ends every stream in the pane; its letters are in no stream.
	marker = "ЖΩЖ attached bench done ЖΩЖ"
)

// paneScript is the pane's program under both multiplexers: $1 the FIFO
// that starts it, $2 the stream.
const paneScript = `read _ < "$1"
cat "$2"
printf '%s\n' '` + marker + `'
exec sleep 1000000
`

type config struct {
	runs    int
	sizeMB  int
	kinds   []string
	muxes   []string
	melmux  string
	tmux    string
	keep    bool
	timeout time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("attached", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.runs, "runs", 3, "runs of every stream on each multiplexer; the table gives medians")
	fs.IntVar(&c.sizeMB, "size-mb", 20, "megabytes of each stream")
	kinds := fs.String("kinds", "plain,sgr,cursor,ink", "streams, comma-separated: plain, sgr, cursor, ink")
	muxes := fs.String("mux", "melmux,tmux", "multiplexers, comma-separated: melmux, tmux")
	fs.StringVar(&c.melmux, "melmux", "", "melmux binary (default: build ./cmd/... of this module)")
	fs.StringVar(&c.tmux, "tmux", "tmux", "tmux binary")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "longest a stream may take to be drawn")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q: every setting is a flag (see -h)", strings.Join(fs.Args(), " "))
	}
	if c.runs < 1 || c.sizeMB < 1 || c.timeout <= 0 {
		return c, fmt.Errorf("-runs %d -size-mb %d -timeout %v: give at least 1 run, 1 MB and a positive timeout", c.runs, c.sizeMB, c.timeout)
	}
	var err error
	if c.kinds, err = list("-kinds", *kinds, []string{"plain", "sgr", "cursor", "ink"}); err != nil {
		return c, err
	}
	if c.muxes, err = list("-mux", *muxes, []string{"melmux", "tmux"}); err != nil {
		return c, err
	}
	return c, nil
}

// list splits a comma-separated flag and refuses names not in allowed.
func list(flagName, value string, allowed []string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(value, ",") {
		name = strings.TrimSpace(name)
		if name == "" || slices.Contains(out, name) {
			continue
		}
		if !slices.Contains(allowed, name) {
			return nil, fmt.Errorf("%s: unknown %q (allowed: %s)", flagName, name, strings.Join(allowed, ", "))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty (allowed: %s)", flagName, strings.Join(allowed, ", "))
	}
	return out, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "attached:", err)
		os.Exit(2)
	}
	if err := bench(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "attached:", err)
		os.Exit(1)
	}
}

// result is one stream drawn once by one multiplexer.
type result struct {
	wall, server, client time.Duration
	drawn                int64 // bytes the client wrote to its terminal
}

func bench(ctx context.Context, cfg config, stdout, stderr io.Writer) (err error) {
	work, err := muxenv.Work("melmux-attached.")
	if err != nil {
		return err
	}
	defer muxenv.Done(work, cfg.keep, stderr)
	script := filepath.Join(work, "pane.sh")
	if err := os.WriteFile(script, []byte(paneScript), 0o644); err != nil {
		return err
	}
	conf := filepath.Join(work, "tmux.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("set -g history-limit %d\n", history)), 0o644); err != nil {
		return err
	}
	tmuxBin, err := exec.LookPath(cfg.tmux)
	if err != nil {
		return fmt.Errorf("tmux %q: %w (install tmux or pass -tmux PATH)", cfg.tmux, err)
	}
	melmuxBin, commit := cfg.melmux, "unknown"
	if melmuxBin == "" {
		if melmuxBin, _, commit, err = muxenv.BuildMelmux(ctx, work); err != nil {
			return err
		}
	}
	files := map[string]string{}
	sizes := map[string]int64{}
	for _, kind := range cfg.kinds {
		b, err := streams.Generate(kind, cfg.sizeMB*1000*1000)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("Ж")) {
			return fmt.Errorf("stream %s holds the marker's letters", kind)
		}
		files[kind] = filepath.Join(work, kind+".txt")
		sizes[kind] = int64(len(b))
		if err := os.WriteFile(files[kind], b, 0o644); err != nil {
			return err
		}
	}
	env := muxenv.Env(work)
	fmt.Fprintf(stderr, "machine: %d cores, %s; load average %s\n", runtime.NumCPU(), muxenv.CPUModel(), muxenv.LoadAvg())
	loadBefore := muxenv.LoadAvg()
	res := map[string]map[string][]result{} // kind, mux
	failures := 0
	for run := 1; run <= cfg.runs; run++ {
		order := cfg.muxes
		if run%2 == 0 {
			order = slices.Clone(order)
			slices.Reverse(order)
		}
		for _, kind := range cfg.kinds {
			if res[kind] == nil {
				res[kind] = map[string][]result{}
			}
			for _, name := range order {
				m := newMux(name, melmuxBin, tmuxBin, conf, work, env, run)
				r, err := once(ctx, cfg, m, script, files[kind], kind)
				if errors.Is(err, errCheck) {
					fmt.Fprintf(stderr, "CORRECTNESS: %s %s run %d: %v\n", name, kind, run, err)
					failures++
				} else if err != nil {
					return fmt.Errorf("%s, stream %s, run %d: %w", name, kind, run, err)
				}
				res[kind][name] = append(res[kind][name], r)
				mb := float64(sizes[kind]) / 1e6
				fmt.Fprintf(stderr, "run %d %-6s %-6s wall %6.3f s (%5.1f MB/s)  server CPU %5.2f s (%5.1f MB/s)  client CPU %5.0f ms  drawn %6.2f MB\n",
					run, name, kind, r.wall.Seconds(), mb/r.wall.Seconds(), r.server.Seconds(), mb/max(r.server.Seconds(), 0.01),
					float64(r.client)/1e6, float64(r.drawn)/1e6)
			}
		}
	}
	fmt.Fprintf(stdout, "\nmelmux %s, %s; %d cores (%s), %s; load average %s before, %s after; %d MB streams, medians of %d runs\n\n",
		commit, muxenv.TmuxVersion(tmuxBin), runtime.NumCPU(), muxenv.CPUModel(), runtime.Version(), loadBefore, muxenv.LoadAvg(), cfg.sizeMB, cfg.runs)
	writeTable(stdout, cfg, res, sizes)
	if failures > 0 {
		return fmt.Errorf("%d correctness check(s) failed; see CORRECTNESS lines above", failures)
	}
	return nil
}

// writeTable prints the medians: for each stream, what each multiplexer did
// and the ratio melmux/tmux (above 1: melmux moved more MB per second).
func writeTable(w io.Writer, cfg config, res map[string]map[string][]result, sizes map[string]int64) {
	fmt.Fprintln(w, "| stream, attached | wall MB/s melmux / tmux | ratio | MB per server CPU s melmux / tmux | ratio | client CPU ms melmux / tmux | drawn MB melmux / tmux |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, kind := range cfg.kinds {
		mb := float64(sizes[kind]) / 1e6
		med := func(name string, f func(result) time.Duration) float64 {
			var v []float64
			for _, r := range res[kind][name] {
				v = append(v, f(r).Seconds())
			}
			return median(v)
		}
		wall := map[string]float64{}
		cpu := map[string]float64{}
		client := map[string]float64{}
		drawn := map[string]float64{}
		for _, name := range cfg.muxes {
			wall[name] = mb / med(name, func(r result) time.Duration { return r.wall })
			cpu[name] = mb / max(med(name, func(r result) time.Duration { return r.server }), 0.01)
			client[name] = 1000 * med(name, func(r result) time.Duration { return r.client })
			drawn[name] = med(name, func(r result) time.Duration { return time.Duration(r.drawn) * time.Second }) / 1e6
		}
		pair := func(m map[string]float64, format string) string {
			var s []string
			for _, name := range []string{"melmux", "tmux"} {
				if v, ok := m[name]; ok {
					s = append(s, fmt.Sprintf(format, v))
				} else {
					s = append(s, "-")
				}
			}
			return strings.Join(s, " / ")
		}
		ratio := func(m map[string]float64) string {
			a, okA := m["melmux"]
			b, okB := m["tmux"]
			if !okA || !okB || b == 0 {
				return "-"
			}
			return fmt.Sprintf("**%.2f**", a/b)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", kind,
			pair(wall, "%.1f"), ratio(wall), pair(cpu, "%.1f"), ratio(cpu), pair(client, "%.0f"), pair(drawn, "%.2f"))
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// errCheck marks a run whose pane did not end as it should have; its
// figures are kept but the program exits 1.
var errCheck = errors.New("check failed")

// once draws one stream on one multiplexer with a client attached. Its
// server and client are gone when it returns.
func once(ctx context.Context, cfg config, m *muxer, script, file, kind string) (r result, err error) {
	fifo := filepath.Join(filepath.Dir(script), "go-"+m.name+"-"+kind)
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return r, fmt.Errorf("mkfifo: %w", err)
	}
	defer os.Remove(fifo)
	if err := m.start(ctx, []string{"sh", script, fifo, file}); err != nil {
		m.stop()
		return r, fmt.Errorf("start the session: %w", err)
	}
	defer m.stop()
	server, err := m.serverPID(ctx)
	if err != nil {
		return r, err
	}
	term, err := muxenv.StartTerminal(m.attachCmd(), paneCols, paneRows+m.chromeRows, marker[:2])
	if err != nil {
		return r, err
	}
	defer func() {
		m.stop() // the server goes first, so the client leaves by itself
		term.Close()
	}()
	if err := term.Settle(ctx, 10*time.Second); err != nil {
		return r, err
	}
	if size, err := m.paneSize(ctx); err != nil {
		return r, err
	} else if want := fmt.Sprintf("%dx%d", paneCols, paneRows); size != want {
		return r, fmt.Errorf("the pane is %s with the client attached, want %s", size, want)
	}
	s0, err := muxenv.CPUTime(server)
	if err != nil {
		return r, err
	}
	c0, err := muxenv.CPUTime(term.Cmd.Process.Pid)
	if err != nil {
		return r, err
	}
	d0 := term.Total()
	t0 := time.Now()
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return r, fmt.Errorf("start the stream: %w", err)
	}
	_, err = f.WriteString("go\n")
	f.Close()
	if err != nil {
		return r, fmt.Errorf("start the stream: %w", err)
	}
	at, err := term.Await(ctx, cfg.timeout)
	if err != nil {
		return r, err
	}
	s1, err := muxenv.CPUTime(server)
	if err != nil {
		return r, err
	}
	c1, err := muxenv.CPUTime(term.Cmd.Process.Pid)
	if err != nil {
		return r, err
	}
	r = result{wall: at.Sub(t0), server: s1 - s0, client: c1 - c0, drawn: term.Total() - d0}
	screen, err := m.screen(ctx)
	if err != nil {
		return r, err
	}
	lines := strings.Split(screen, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for _, want := range []string{streams.Last(kind), marker} {
		if !slices.Contains(lines, want) {
			return r, fmt.Errorf("%w: the pane's screen does not show the line %q", errCheck, want)
		}
	}
	return r, nil
}

// muxer drives one multiplexer through its CLI: one session, one server.
type muxer struct {
	name       string
	bin        string
	env        []string
	base       []string // arguments before every command: session or socket
	conf       string   // tmux's configuration file
	chromeRows int      // rows the multiplexer draws beside the pane
	live       bool
	pid        int
}

func newMux(name, melmuxBin, tmuxBin, conf, work string, env []string, run int) *muxer {
	if name == "melmux" {
		return &muxer{name: name, bin: melmuxBin, env: env, base: []string{"-s", "bench" + strconv.Itoa(run)}, chromeRows: 2}
	}
	// A new socket per session: a new server could otherwise reach one
	// that kill-server has not finished ending.
	sock := filepath.Join(work, fmt.Sprintf("tmux%d-%d.sock", run, time.Now().UnixNano()))
	return &muxer{name: name, bin: tmuxBin, env: env, base: []string{"-S", sock}, conf: conf, chromeRows: 1}
}

func (m *muxer) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.bin, append(slices.Clone(m.base), args...)...)
	cmd.Env = m.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", m.name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (m *muxer) start(ctx context.Context, argv []string) error {
	var err error
	if m.name == "melmux" {
		_, err = m.run(ctx, append([]string{"new", "-d", "-x", strconv.Itoa(paneCols), "-y", strconv.Itoa(paneRows + m.chromeRows), "--"}, argv...)...)
	} else {
		q := make([]string, len(argv))
		for i, a := range argv {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		_, err = m.run(ctx, "-f", m.conf, "new-session", "-d", "-s", "bench", "-x", strconv.Itoa(paneCols), "-y", strconv.Itoa(paneRows), "exec "+strings.Join(q, " "))
	}
	m.live = err == nil
	return err
}

func (m *muxer) serverPID(ctx context.Context) (int, error) {
	if m.name == "melmux" {
		var list []struct {
			Name string `json:"name"`
			PID  int    `json:"pid"`
		}
		if err := m.runJSON(ctx, &list, "ls", "--json"); err != nil {
			return 0, err
		}
		for _, s := range list {
			if s.Name == m.base[1] && s.PID > 0 {
				m.pid = s.PID
				return s.PID, nil
			}
		}
		return 0, fmt.Errorf("melmux ls --json does not list session %q", m.base[1])
	}
	out, err := m.run(ctx, "display-message", "-p", "-t", "bench", "#{pid}")
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("tmux display-message #{pid} gave %q, not a process id", strings.TrimSpace(out))
	}
	m.pid = pid
	return pid, nil
}

// runJSON runs a command that prints JSON and decodes it into v.
func (m *muxer) runJSON(ctx context.Context, v any, args ...string) error {
	out, err := m.run(ctx, args...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		return fmt.Errorf("%s %s: %w", m.name, strings.Join(args, " "), err)
	}
	return nil
}

func (m *muxer) paneSize(ctx context.Context) (string, error) {
	if m.name == "tmux" {
		out, err := m.run(ctx, "list-panes", "-t", "bench", "-F", "#{pane_width}x#{pane_height}")
		return strings.TrimSpace(out), err
	}
	var panes []struct {
		Cols int `json:"cols"`
		Rows int `json:"rows"`
	}
	if err := m.runJSON(ctx, &panes, "list-panes", "--json"); err != nil {
		return "", err
	}
	var sizes []string
	for _, p := range panes {
		sizes = append(sizes, fmt.Sprintf("%dx%d", p.Cols, p.Rows))
	}
	return strings.Join(sizes, " "), nil
}

func (m *muxer) screen(ctx context.Context) (string, error) {
	if m.name == "tmux" {
		return m.run(ctx, "capture-pane", "-p", "-t", "bench")
	}
	return m.run(ctx, "read-pane", "-t", "1")
}

func (m *muxer) attachCmd() *exec.Cmd {
	args := slices.Clone(m.base)
	if m.name == "tmux" {
		args = append(args, "attach-session", "-t", "bench")
	} else {
		args = append(args, "attach")
	}
	cmd := exec.Command(m.bin, args...)
	cmd.Env = m.env
	return cmd
}

// stop ends the server and waits until its process has gone.
func (m *muxer) stop() {
	if !m.live {
		return
	}
	m.live = false
	_, _ = m.run(context.Background(), "kill-server")
	if m.pid == 0 {
		return
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(m.pid)); os.IsNotExist(err) {
			return
		}
	}
	_ = syscall.Kill(m.pid, syscall.SIGKILL) // only the server this run started, by its pid
}
