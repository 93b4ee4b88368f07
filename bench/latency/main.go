package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/melmux/melmux/bench/internal/muxenv"
)

// config is the run as the flags set it.
type config struct {
	keys       int
	warmup     int
	gap        time.Duration
	jitter     time.Duration
	timeout    time.Duration
	rounds     int
	cases      []string
	idlePanes  int
	idleWindow time.Duration
	settle     time.Duration
	cols, rows int
	melmux     string
	tmux       string
	muxes      []string // which multiplexers run, in table order
	csv        string   // file for every key's latency, "" for none
	keep       bool
}

// caseNames are the neighbour cases a latency run can use.
var caseNames = []string{"idle", "flood", "flood4"}

// muxNames are the multiplexers in the order tables list them.
var muxNames = []string{"melmux", "tmux"}

// parseFlags reads the flags and refuses values the run cannot use, naming
// the flag and what is allowed.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("latency", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.keys, "n", 300, "keys measured per multiplexer, case and round")
	fs.IntVar(&c.warmup, "warmup", 10, "keys typed first and not measured")
	fs.DurationVar(&c.gap, "gap", 20*time.Millisecond, "least time between two keys")
	fs.DurationVar(&c.jitter, "jitter", 10*time.Millisecond, "random extra time added to each gap, so keys do not lock onto a frame clock")
	fs.DurationVar(&c.timeout, "timeout", 2*time.Second, "a key whose echo takes longer counts as lost")
	fs.IntVar(&c.rounds, "rounds", 2, "rounds; each runs every case on both multiplexers, alternating which goes first")
	casesFlag := fs.String("cases", "idle,flood,flood4", "neighbour cases to run, comma-separated: idle, flood, flood4")
	fs.IntVar(&c.idlePanes, "idle-panes", 20, "panes in the idle CPU test (0 skips it)")
	fs.DurationVar(&c.idleWindow, "idle-window", 10*time.Second, "quiet time over which idle CPU is measured")
	fs.DurationVar(&c.settle, "settle", 3*time.Second, "least wait after attaching before the idle window opens")
	fs.IntVar(&c.cols, "cols", 120, "terminal width")
	fs.IntVar(&c.rows, "rows", 40, "terminal height")
	fs.StringVar(&c.melmux, "melmux", "", "melmux binary (default: build ./cmd/... of this module)")
	fs.StringVar(&c.tmux, "tmux", "tmux", "tmux binary")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (scripts, logs)")
	muxFlag := fs.String("mux", "melmux,tmux", "multiplexers to run, comma-separated: melmux, tmux")
	fs.StringVar(&c.csv, "csv", "", "also write every key's latency to this CSV file")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q: every setting is a flag (see -h)", strings.Join(fs.Args(), " "))
	}
	switch {
	case c.keys < 1:
		return c, fmt.Errorf("-n %d: give at least 1 key", c.keys)
	case c.warmup < 1:
		return c, fmt.Errorf("-warmup %d: give at least 1 key (the first echo shows the client is drawing)", c.warmup)
	case c.gap < 0 || c.jitter < 0:
		return c, fmt.Errorf("-gap %v -jitter %v: durations must not be negative", c.gap, c.jitter)
	case c.timeout <= 0:
		return c, fmt.Errorf("-timeout %v: give a positive duration", c.timeout)
	case c.rounds < 1:
		return c, fmt.Errorf("-rounds %d: give at least 1 round", c.rounds)
	case c.idlePanes < 0 || c.idlePanes > 64:
		return c, fmt.Errorf("-idle-panes %d: give 0 (skip) to 64", c.idlePanes)
	case c.idlePanes > 0 && c.idleWindow < time.Second:
		return c, fmt.Errorf("-idle-window %v: give at least 1s", c.idleWindow)
	case c.settle < 0:
		return c, fmt.Errorf("-settle %v: must not be negative", c.settle)
	case c.cols < 40 || c.cols > 500 || c.rows < 10 || c.rows > 200:
		return c, fmt.Errorf("-cols %d -rows %d: give 40..500 columns and 10..200 rows", c.cols, c.rows)
	}
	if _, err := markers(c.warmup + c.keys); err != nil {
		return c, fmt.Errorf("-n %d -warmup %d: %w", c.keys, c.warmup, err)
	}
	for _, name := range strings.Split(*muxFlag, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !contains(muxNames, name) {
			return c, fmt.Errorf("-mux: unknown multiplexer %q (allowed: %s)", name, strings.Join(muxNames, ", "))
		}
		if !contains(c.muxes, name) {
			c.muxes = append(c.muxes, name)
		}
	}
	if len(c.muxes) == 0 {
		return c, fmt.Errorf("-mux is empty: name melmux, tmux or both")
	}
	for _, name := range strings.Split(*casesFlag, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !contains(caseNames, name) {
			return c, fmt.Errorf("-cases: unknown case %q (allowed: %s)", name, strings.Join(caseNames, ", "))
		}
		if !contains(c.cases, name) {
			c.cases = append(c.cases, name)
		}
	}
	if len(c.cases) == 0 && c.idlePanes == 0 {
		return c, errors.New("-cases is empty and -idle-panes is 0: nothing to run")
	}
	return c, nil
}

func reversed(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[len(list)-1-i] = s
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run returns the exit status: 0 done, 1 a measurement failed, 2 bad flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "latency:", err)
		return 2
	}
	if err := bench(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "latency:", err)
		return 1
	}
	return 0
}

// scripts are the pane programs, identical for both multiplexers.
var scripts = map[string]string{
	// The focused pane: raw mode, no tty echo, every byte read written back
	// at once. READY says stty has run.
	"echo.sh": "stty raw -echo\nprintf 'READY\\r\\n'\nexec cat\n",
	// The flooding neighbour: numbered coloured lines as fast as the pane
	// takes them. Every line differs, so every frame changes (identical
	// lines, as from yes, would let a diffing renderer send nothing).
	"flood.sh": "exec awk 'BEGIN { for (i = 0; ; i++) printf \"\\033[3%dm%09d flood the quick brown fox\\033[0m %d\\n\", i % 7 + 1, i, i * 7 }'\n",
	// The quiet neighbour.
	"quiet.sh": "printf 'idle neighbour\\r\\n'\nexec sleep 1000000\n",
}

// caseLayouts are the panes of each neighbour case, the pane typed into
// last (so focused). idle and flood: the neighbour on the left half, the
// typed-into pane on the right. flood4: four flooding panes and the
// typed-into one, from a window split in two rows, each row in two, and the
// bottom right quarter in two again (the typed-into pane its right half).
func caseLayouts(work string) map[string][]paneStep {
	sh := func(script string) []string { return []string{"sh", filepath.Join(work, script)} }
	echo := sh("echo.sh")
	flood := sh("flood.sh")
	return map[string][]paneStep{
		"idle":  {{cmd: sh("quiet.sh")}, {cmd: echo, split: 0, dir: "right"}},
		"flood": {{cmd: flood}, {cmd: echo, split: 0, dir: "right"}},
		"flood4": {{cmd: flood}, {cmd: flood, split: 0, dir: "down"}, {cmd: flood, split: 0, dir: "right"},
			{cmd: flood, split: 1, dir: "right"}, {cmd: echo, split: 3, dir: "right"}},
	}
}

func bench(ctx context.Context, cfg config, stdout, stderr io.Writer) (err error) {
	work, err := muxenv.Work("melmux-latency.")
	if err != nil {
		return err
	}
	defer muxenv.Done(work, cfg.keep, stderr)
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	tmuxBin, err := exec.LookPath(cfg.tmux)
	if err != nil {
		return fmt.Errorf("tmux %q: %w (install tmux or pass -tmux PATH)", cfg.tmux, err)
	}
	melmuxBin, melmuxRoot := cfg.melmux, ""
	if melmuxBin == "" {
		if melmuxBin, melmuxRoot, _, err = muxenv.BuildMelmux(ctx, work); err != nil {
			return err
		}
	} else if melmuxBin, err = exec.LookPath(melmuxBin); err != nil {
		return fmt.Errorf("-melmux: %w", err)
	}
	env := muxenv.Env(work)
	drivers := map[string]mux{
		"melmux": &melmuxDriver{bin: melmuxBin, env: env, cols: cfg.cols, rows: cfg.rows},
		"tmux":   &tmuxDriver{bin: tmuxBin, dir: work, env: env, cols: cfg.cols, rows: cfg.rows},
	}
	rep := newReport(cfg, melmuxBin, melmuxRoot, tmuxBin)
	layouts := caseLayouts(work)
	var csv *os.File
	if cfg.csv != "" {
		if csv, err = os.Create(cfg.csv); err != nil {
			return fmt.Errorf("-csv: %w", err)
		}
		defer func() {
			if cerr := csv.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("-csv: %w", cerr)
			}
		}()
		fmt.Fprintln(csv, "multiplexer,neighbour,round,key,sent_ms,latency_ms")
	}
	for round := 1; round <= cfg.rounds; round++ {
		order := cfg.muxes
		if round%2 == 0 {
			order = reversed(cfg.muxes)
		}
		for _, cs := range cfg.cases {
			for _, name := range order {
				res, err := latencyRun(ctx, cfg, drivers[name], layouts[cs])
				if err != nil {
					return fmt.Errorf("%s, neighbour %s, round %d: %w", name, cs, round, err)
				}
				rep.addLatency(cs, name, res)
				if csv != nil {
					for _, k := range res.keys {
						fmt.Fprintf(csv, "%s,%s,%d,%d,%.3f,%s\n", name, cs, round, k.index, k.sentMS, k.result)
					}
				}
				s := summarize(res.lat, res.lost)
				fmt.Fprintf(stderr, "round %d %-6s neighbour %-6s p50 %s p90 %s p99 %s max %s ms, lost %d, server CPU %.2fs\n",
					round, name, cs, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max), s.Lost, res.server.RunTime.Seconds())
			}
		}
	}
	if cfg.idlePanes > 0 {
		for _, name := range cfg.muxes {
			res, err := idleRun(ctx, cfg, drivers[name])
			if err != nil {
				return fmt.Errorf("%s, idle CPU: %w", name, err)
			}
			rep.idle[name] = res
			fmt.Fprintf(stderr, "idle %-6s server: %d runs, %s CPU over %s; client: %d runs; %d bytes drawn\n",
				name, res.server.Runs, res.server.RunTime, res.server.Span.Round(time.Millisecond), res.client.Runs, res.bytes)
		}
	}
	rep.loadAfter = muxenv.LoadAvg()
	rep.write(stdout)
	return nil
}

// latencyResult is one latency run: one multiplexer, one neighbour case.
type latencyResult struct {
	keys   []keyRecord
	lat    []time.Duration
	lost   int
	server procDelta
	client procDelta
	bytes  int64 // bytes the client drew while keys were measured
}

// keyRecord is one measured key, for the CSV.
type keyRecord struct {
	index  int
	sentMS float64 // since the first measured key
	result string  // latency in ms, or "lost"
}

// latencyRun starts a session, attaches, types cfg.keys keys and times each
// echo. Its session and client are gone when it returns.
func latencyRun(ctx context.Context, cfg config, m mux, steps []paneStep) (res latencyResult, err error) {
	if err := m.startPanes(ctx, steps); err != nil {
		_ = m.stop()
		return res, fmt.Errorf("start the session: %w", err)
	}
	defer func() {
		if serr := m.stop(); serr != nil && err == nil {
			err = fmt.Errorf("stop the server: %w", serr)
		}
	}()
	if err := waitScreen(ctx, m, "READY", 10*time.Second); err != nil {
		return res, err
	}
	pid, err := m.serverPID(ctx)
	if err != nil {
		return res, err
	}
	term, err := startTerminal(m.attachCmd(), cfg.cols, cfg.rows)
	if err != nil {
		return res, err
	}
	defer func() {
		// The server goes first so the client leaves by itself.
		_ = m.stop()
		if cerr := term.close(); cerr != nil && err == nil {
			err = fmt.Errorf("attach client: %w", cerr)
		}
	}()
	keys, err := markers(cfg.warmup + cfg.keys)
	if err != nil {
		return res, err
	}
	for i, k := range keys[:cfg.warmup] {
		// The first echo also waits for the client to attach and draw.
		limit := cfg.timeout
		if i == 0 {
			limit = 10 * time.Second
		}
		term.expect([]byte(k))
		if _, err := term.typeKey([]byte(k)); err != nil {
			return res, err
		}
		if _, err := term.await(limit); err != nil {
			return res, fmt.Errorf("warm-up key %d (%q) never came back: %w", i+1, k, err)
		}
		time.Sleep(cfg.gap)
	}
	sBefore, err := sampleProc("/proc", pid)
	if err != nil {
		return res, fmt.Errorf("server: %w", err)
	}
	cBefore, err := sampleProc("/proc", term.pid())
	if err != nil {
		return res, fmt.Errorf("client: %w", err)
	}
	bytesBefore := term.bytesSeen()
	first := time.Now()
	for i, k := range keys[cfg.warmup:] {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		term.expect([]byte(k))
		sent, err := term.typeKey([]byte(k))
		if err != nil {
			return res, err
		}
		at, err := term.await(cfg.timeout)
		rec := keyRecord{index: i + 1, sentMS: float64(sent.Sub(first)) / float64(time.Millisecond)}
		switch {
		case errors.Is(err, ErrEchoTimeout):
			res.lost++
			rec.result = "lost"
		case err != nil:
			return res, err
		default:
			res.lat = append(res.lat, at.Sub(sent))
			rec.result = fmt.Sprintf("%.3f", float64(at.Sub(sent))/float64(time.Millisecond))
		}
		res.keys = append(res.keys, rec)
		next := sent.Add(cfg.gap)
		if cfg.jitter > 0 {
			next = next.Add(rand.N(cfg.jitter))
		}
		time.Sleep(time.Until(next))
	}
	sAfter, err := sampleProc("/proc", pid)
	if err != nil {
		return res, fmt.Errorf("server: %w", err)
	}
	cAfter, err := sampleProc("/proc", term.pid())
	if err != nil {
		return res, fmt.Errorf("client: %w", err)
	}
	res.server, res.client = sBefore.to(sAfter), cBefore.to(cAfter)
	res.bytes = term.bytesSeen() - bytesBefore
	return res, nil
}

// waitScreen polls the focused pane until its text holds want.
func waitScreen(ctx context.Context, m mux, want string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	var last string
	for {
		text, err := m.screen(ctx)
		if err == nil && strings.Contains(text, want) {
			return nil
		}
		if err != nil {
			last = err.Error()
		} else {
			last = fmt.Sprintf("screen %q", strings.TrimSpace(text))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the focused pane did not show %q within %v (last: %s)", want, limit, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// idleResult is the idle CPU test of one multiplexer.
type idleResult struct {
	layout string
	server procDelta
	client procDelta
	bytes  int64 // bytes the client drew during the window
}

// idleRun opens cfg.idlePanes idle shells, attaches one client, waits for the
// screen to settle and measures a window in which nothing is typed.
func idleRun(ctx context.Context, cfg config, m mux) (res idleResult, err error) {
	layout, err := m.startMany(ctx, []string{"sh", "-i"}, cfg.idlePanes)
	if err != nil {
		_ = m.stop()
		return res, fmt.Errorf("start %d panes: %w", cfg.idlePanes, err)
	}
	res.layout = layout
	defer func() {
		if serr := m.stop(); serr != nil && err == nil {
			err = fmt.Errorf("stop the server: %w", serr)
		}
	}()
	pid, err := m.serverPID(ctx)
	if err != nil {
		return res, err
	}
	term, err := startTerminal(m.attachCmd(), cfg.cols, cfg.rows)
	if err != nil {
		return res, err
	}
	defer func() {
		_ = m.stop()
		if cerr := term.close(); cerr != nil && err == nil {
			err = fmt.Errorf("attach client: %w", cerr)
		}
	}()
	// Settle: at least cfg.settle, and until the client has drawn something
	// and then been quiet for a second (at most 20 s).
	start := time.Now()
	lastBytes, quietSince := int64(-1), time.Now()
	for {
		n := term.bytesSeen()
		if n != lastBytes {
			lastBytes, quietSince = n, time.Now()
		}
		if n > 0 && time.Since(start) >= cfg.settle && time.Since(quietSince) >= time.Second {
			break
		}
		if time.Since(start) > 20*time.Second {
			return res, fmt.Errorf("the attached client did not settle within 20 s (%d bytes drawn)", n)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	sBefore, err := sampleProc("/proc", pid)
	if err != nil {
		return res, fmt.Errorf("server: %w", err)
	}
	cBefore, err := sampleProc("/proc", term.pid())
	if err != nil {
		return res, fmt.Errorf("client: %w", err)
	}
	bytesBefore := term.bytesSeen()
	select {
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(cfg.idleWindow):
	}
	sAfter, err := sampleProc("/proc", pid)
	if err != nil {
		return res, fmt.Errorf("server: %w", err)
	}
	cAfter, err := sampleProc("/proc", term.pid())
	if err != nil {
		return res, fmt.Errorf("client: %w", err)
	}
	res.server, res.client = sBefore.to(sAfter), cBefore.to(cAfter)
	res.bytes = term.bytesSeen() - bytesBefore
	return res, nil
}
