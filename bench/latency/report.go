package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/melmux/melmux/bench/internal/muxenv"
)

// p99Target is the bound melmux's p99 keystroke-to-echo latency is held to.
const p99Target = 30 * time.Millisecond

// report gathers every run and prints the markdown the docs paste.
type report struct {
	cfg       config
	started   time.Time
	machine   string
	versions  string
	loadStart string
	loadAfter string
	lat       map[string]map[string]*latencyAgg // case -> mux
	idle      map[string]idleResult
}

// latencyAgg pools the rounds of one multiplexer and case.
type latencyAgg struct {
	lat    []time.Duration
	lost   int
	server time.Duration // server run time while keys were measured
	client time.Duration
	bytes  int64
	span   time.Duration
}

func newReport(cfg config, melmuxBin, melmuxRoot, tmuxBin string) *report {
	r := &report{cfg: cfg, started: time.Now().UTC(), loadStart: muxenv.LoadAvg(),
		lat: map[string]map[string]*latencyAgg{}, idle: map[string]idleResult{}}
	host, _ := os.Hostname()
	r.machine = fmt.Sprintf("%s: %d cores (%s), Linux %s", host, runtime.NumCPU(), muxenv.CPUModel(), kernelRelease())
	tv, _ := exec.Command(tmuxBin, "-V").Output()
	r.versions = fmt.Sprintf("%s, %s, melmux %s", strings.TrimSpace(string(tv)), runtime.Version(), melmuxRevision(melmuxBin, melmuxRoot))
	return r
}

func (r *report) addLatency(cs, name string, res latencyResult) {
	if r.lat[cs] == nil {
		r.lat[cs] = map[string]*latencyAgg{}
	}
	a := r.lat[cs][name]
	if a == nil {
		a = &latencyAgg{}
		r.lat[cs][name] = a
	}
	a.lat = append(a.lat, res.lat...)
	a.lost += res.lost
	a.server += res.server.RunTime
	a.client += res.client.RunTime
	a.bytes += res.bytes
	a.span += res.server.Span
}

func (r *report) write(w io.Writer) {
	cfg := r.cfg
	fmt.Fprintf(w, "Run on %s UTC, %s; %s.\n", r.started.Format("2006-01-02 15:04"), r.machine, r.versions)
	fmt.Fprintf(w, "Load average %s at the start, %s at the end.\n\n", r.loadStart, r.loadAfter)
	if len(cfg.cases) > 0 {
		fmt.Fprintf(w, "Keystroke to echo, %dx%d terminal (neighbour idle or flood: two panes side by side; flood4: four flooding panes and the typed-into one), %d keys per multiplexer and case in each of %d rounds (after %d warm-up keys), gap %v + up to %v jitter; ms:\n\n",
			cfg.cols, cfg.rows, cfg.keys, cfg.rounds, cfg.warmup, cfg.gap, cfg.jitter)
		fmt.Fprintln(w, "| neighbour | multiplexer | keys | lost | p50 | p90 | p99 | max | mean | server CPU per key | client CPU per key | drawn bytes/s |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, cs := range cfg.cases {
			for _, name := range muxNames {
				a := r.lat[cs][name]
				if a == nil {
					continue
				}
				s := summarize(a.lat, a.lost)
				keys := int64(s.N + s.Lost)
				fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s ms | %s ms | %s |\n",
					cs, name, s.N, s.Lost, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max), ms(s.Avg),
					ms(a.server/time.Duration(max(keys, 1))), ms(a.client/time.Duration(max(keys, 1))), rate(a.bytes, a.span))
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| neighbour | p50 melmux/tmux | p90 | p99 | max |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, cs := range cfg.cases {
			m, t := r.lat[cs]["melmux"], r.lat[cs]["tmux"]
			if m == nil || t == nil {
				continue
			}
			ms1, ts1 := summarize(m.lat, m.lost), summarize(t.lat, t.lost)
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", cs, ratio(ms1.P50, ts1.P50), ratio(ms1.P90, ts1.P90), ratio(ms1.P99, ts1.P99), ratio(ms1.Max, ts1.Max))
		}
		fmt.Fprintln(w)
		for _, cs := range cfg.cases {
			m, t := r.lat[cs]["melmux"], r.lat[cs]["tmux"]
			if m == nil || t == nil {
				continue
			}
			ms1, ts1 := summarize(m.lat, m.lost), summarize(t.lat, t.lost)
			fmt.Fprintf(w, "- neighbour %s: melmux p99 %s ms, target <= %s ms: %s; below tmux's %s ms: %s; keys lost: melmux %d, tmux %d.\n",
				cs, ms(ms1.P99), ms(p99Target), yesNo(ms1.P99 <= p99Target && ms1.N > 0 && ms1.Lost == 0, "met", "NOT met"),
				ms(ts1.P99), yesNo(ms1.P99 < ts1.P99, "yes", "NO"), ms1.Lost, ts1.Lost)
		}
		fmt.Fprintln(w)
	}
	if len(r.idle) > 0 {
		fmt.Fprintf(w, "Idle: %d idle shells (`sh -i`), one client attached, nothing typed; a %v window after the screen settled:\n\n", cfg.idlePanes, cfg.idleWindow)
		fmt.Fprintln(w, "| multiplexer | layout | server CPU (stat ticks) | server run time | server wake-ups (runs) | voluntary switches | threads | client wake-ups | client bytes drawn |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
		for _, name := range muxNames {
			res, ok := r.idle[name]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %d (%.1f/s) | %d | %d | %d | %d |\n",
				name, res.layout, res.server.CPU, res.server.RunTime.Round(time.Microsecond), res.server.Runs,
				float64(res.server.Runs)/res.server.Span.Seconds(), res.server.Volun, res.server.Threads, res.client.Runs, res.bytes)
		}
		fmt.Fprintln(w)
	}
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// rate is bytes per second in human units.
func rate(n int64, span time.Duration) string {
	if span <= 0 {
		return "n/a"
	}
	v := float64(n) / span.Seconds()
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// melmuxRevision names what was measured: the VCS revision Go stamped into
// the binary, or else the checkout's HEAD when the program built melmux from
// it (root is then the module directory), and whether files had uncommitted
// changes.
func melmuxRevision(bin, root string) string {
	rev, dirty := "", false
	if out, err := exec.Command("go", "version", "-m", bin).Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 2 && f[0] == "build" {
				k, v, _ := strings.Cut(f[1], "=")
				switch k {
				case "vcs.revision":
					rev = v
				case "vcs.modified":
					dirty = v == "true"
				}
			}
		}
	}
	if rev == "" && root != "" {
		if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
			rev = strings.TrimSpace(string(out))
			st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
			dirty = err == nil && len(strings.TrimSpace(string(st))) > 0
		}
	}
	if rev == "" {
		return "(revision unknown)"
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if dirty {
		return "at " + rev + " (the checkout also had uncommitted changes)"
	}
	return "at " + rev
}
