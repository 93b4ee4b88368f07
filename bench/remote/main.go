package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/melmux/melmux/bench/internal/muxenv"
)

type config struct {
	cases  map[string]bool
	keys   int
	warmup int
	rounds int
	gap    time.Duration
	cut    time.Duration
	delay  time.Duration
	melmux string
	keep   bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(mainRun(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func mainRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("remote", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cases := fs.String("case", "echo,cut", "what to measure: `echo,cut` (either or both)")
	var c config
	fs.IntVar(&c.keys, "keys", 200, "keys measured per setup and round")
	fs.IntVar(&c.warmup, "warmup", 10, "keys typed first and not measured")
	fs.IntVar(&c.rounds, "rounds", 2, "rounds of every echo setup, one setup after another")
	fs.DurationVar(&c.gap, "gap", 20*time.Millisecond, "time between an echo and the next key (plus up to 10ms)")
	fs.DurationVar(&c.cut, "cut", 30*time.Second, "how long the link is down in the cut case")
	fs.DurationVar(&c.delay, "delay", 0, "one-way delay added to each direction of the link (tc netem)")
	fs.StringVar(&c.melmux, "melmux", "", "melmux binary, beside its melmux-server and melmux-agent (default: build this checkout)")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c.cases = map[string]bool{}
	for _, w := range strings.Split(*cases, ",") {
		if w != "echo" && w != "cut" {
			fmt.Fprintf(stderr, "remote: -case %q: give echo, cut or echo,cut\n", w)
			return 2
		}
		c.cases[w] = true
	}
	if c.keys < 1 || c.warmup < 0 || c.rounds < 1 || c.cut <= 0 || c.delay < 0 {
		fmt.Fprintln(stderr, "remote: -keys and -rounds must be at least 1, -warmup and -delay not negative, -cut positive")
		return 2
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(stderr, "remote: run as root: it makes a network namespace, a link and an sshd")
		return 2
	}
	if err := bench(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "remote:", err)
		return 1
	}
	return 0
}

// env is a melmux session's environment on this side.
type env struct {
	bin string
	env []string
}

func (e env) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env = e.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("melmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// waitPane waits until pane id shows want.
func (e env) waitPane(ctx context.Context, id, want string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		out, err := e.run(ctx, "read-pane", "-t", id, "--all")
		if err == nil && strings.Contains(out, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pane %s did not show %q within %s: %v\n%s", id, want, limit, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func bench(ctx context.Context, c config, stdout, stderr io.Writer) error {
	work, err := muxenv.Work("melmux-remote")
	if err != nil {
		return err
	}
	defer muxenv.Done(work, c.keep, stderr)
	commit := "given"
	if c.melmux == "" {
		fmt.Fprintln(stderr, "building melmux...")
		if c.melmux, _, commit, err = muxenv.BuildMelmux(ctx, work); err != nil {
			return err
		}
	}
	h, err := startHost(work, c.delay)
	if err != nil {
		return err
	}
	defer h.stop()
	local := env{bin: c.melmux, env: append(muxenv.Env(work), "MELMUX_SSH=ssh -F "+h.config)}
	defer func() { _, _ = local.run(context.Background(), "kill-server") }()

	fmt.Fprintf(stdout, "bench/remote: melmux %s, %s, %d cores (%s), load %s, link veth in a netns (sshd %s)",
		commit, runtime.Version(), runtime.NumCPU(), muxenv.CPUModel(), muxenv.LoadAvg(), h.addr)
	if c.delay > 0 {
		fmt.Fprintf(stdout, " + %s each way (netem)", c.delay)
	}
	fmt.Fprintln(stdout)
	if c.cases["echo"] {
		if err := echoBench(ctx, c, h, local, stdout, stderr); err != nil {
			return err
		}
	}
	if c.cases["cut"] {
		if err := cutBench(ctx, c, h, local, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// setup is one way of reaching the echoing program.
type setup struct {
	name  string
	start func(ctx context.Context) (*keyTerm, func(), error)
}

const echoProgram = `stty raw -echo; echo rea""dy; exec cat`

func echoBench(ctx context.Context, c config, h *host, local env, stdout, stderr io.Writer) error {
	ks, err := keys(c.warmup + c.keys)
	if err != nil {
		return err
	}
	tmuxSock := filepath.Join(h.dir, "tmux.sock")
	ready := []byte("ready")
	setups := []setup{
		{"ssh -t host (the link alone)", func(ctx context.Context) (*keyTerm, func(), error) {
			k, err := startKeyTerm(withEnv(h.sshCmd(echoProgram), local.env), 120, 40)
			if err != nil {
				return nil, nil, err
			}
			_, err = k.await(0, ready, time.Minute)
			return k, k.close, err
		}},
		{"ssh -t host tmux", func(ctx context.Context) (*keyTerm, func(), error) {
			cmd := h.sshCmd("exec tmux -u -S " + tmuxSock + " -f /dev/null new-session '" + echoProgram + "'")
			k, err := startKeyTerm(withEnv(cmd, local.env), 120, 40)
			if err != nil {
				return nil, nil, err
			}
			_, err = k.await(0, ready, time.Minute)
			return k, func() {
				_ = exec.Command("tmux", "-S", tmuxSock, "kill-server").Run()
				k.close()
			}, err
		}},
		{"melmux, pane on the host", func(ctx context.Context) (*keyTerm, func(), error) {
			return melmuxEcho(ctx, local, []string{"--host", "h1"})
		}},
		{"melmux, local pane", func(ctx context.Context) (*keyTerm, func(), error) {
			return melmuxEcho(ctx, local, nil)
		}},
	}
	all := make([][]time.Duration, len(setups))
	lost := make([]int, len(setups))
	for round := 0; round < c.rounds; round++ {
		for i, s := range setups {
			fmt.Fprintf(stderr, "round %d: %s...\n", round+1, s.name)
			k, stop, err := s.start(ctx)
			if err != nil {
				if stop != nil {
					stop()
				}
				return fmt.Errorf("%s: %w", s.name, err)
			}
			if _, _, err := typeKeys(ctx, k, ks[:c.warmup], c.gap); err != nil {
				stop()
				return fmt.Errorf("%s: warm-up: %w", s.name, err)
			}
			lat, l, err := typeKeys(ctx, k, ks[c.warmup:], c.gap)
			stop()
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			all[i] = append(all[i], lat...)
			lost[i] += l
		}
	}
	fmt.Fprintf(stdout, "\nkey-to-echo, %d keys x %d rounds per setup (ms)\n\n", c.keys, c.rounds)
	fmt.Fprintln(stdout, "| setup | p50 | p90 | p99 | max | lost |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	for i, s := range setups {
		m := summarize(all[i], lost[i])
		fmt.Fprintf(stdout, "| %s | %s | %s | %s | %s | %d |\n", s.name, ms(m.p50), ms(m.p90), ms(m.p99), ms(m.max), m.lost)
	}
	return nil
}

func withEnv(cmd *exec.Cmd, env []string) *exec.Cmd {
	cmd.Env = env
	return cmd
}

// melmuxEcho opens the echoing program in a pane of its own session (on
// the host with --host), the session's only pane, and attaches a client.
func melmuxEcho(ctx context.Context, local env, flags []string) (*keyTerm, func(), error) {
	_, _ = local.run(ctx, "kill-server")
	if _, err := local.run(ctx, "new", "-d", "-x", "120", "-y", "40"); err != nil {
		return nil, nil, err
	}
	stop := func() { _, _ = local.run(context.Background(), "kill-server") }
	out, err := local.run(ctx, append(append([]string{"open-pane"}, flags...), "--", "sh", "-c", echoProgram)...)
	if err != nil {
		return nil, stop, err
	}
	id := strings.TrimSpace(out)
	if err := local.waitPane(ctx, id, "ready", time.Minute); err != nil {
		return nil, stop, err
	}
	if _, err := local.run(ctx, "kill-pane", "-t", "1"); err != nil {
		return nil, stop, err
	}
	k, err := startKeyTerm(withEnv(exec.Command(local.bin, "attach"), local.env), 120, 40)
	if err != nil {
		return nil, stop, err
	}
	if _, err := k.await(0, []byte("ready"), time.Minute); err != nil {
		k.close()
		return nil, stop, err
	}
	time.Sleep(300 * time.Millisecond) // the first frame drawn whole
	return k, func() { k.close(); stop() }, nil
}

// hostState is what `melmux hosts` says of h1.
func hostState(ctx context.Context, local env) (state, why string) {
	out, err := local.run(ctx, "hosts", "--json")
	if err != nil {
		return "", err.Error()
	}
	var hs []struct {
		Host, State, Error string
	}
	_ = json.Unmarshal([]byte(out), &hs)
	for _, h := range hs {
		if h.Host == "h1" {
			return h.State, h.Error
		}
	}
	return "", ""
}
