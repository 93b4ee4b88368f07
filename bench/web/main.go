// Command web measures `melmux web` in the real Chromium against the real
// binaries, and takes the screenshots of docs/web.md.
//
//	go run ./bench/web                          # echo latency, flood bytes, page size
//	go run ./bench/web -screenshots docs/images # the two screenshots
//	go run ./bench/web -renderers               # melmux's renderer against xterm.js (renderers.go)
//
// Echo latency: a session with a shell (bash --norc, else sh) on the left
// and the raw-mode echo bench/latency types into (`stty raw -echo; exec
// cat`) on the right is served by `melmux web` and opened in headless
// Chromium. Each key is sent through the DevTools protocol as a real key
// press (Input.dispatchKeyEvent); the page itself measures from the
// keydown event's timestamp to the moment the echoed text is in the
// pane's DOM (a MutationObserver), so neither the protocol's round trips
// nor the polling count. One key at a time, the next -gap plus up to
// -jitter after the previous echo. The attached terminal's echo is
// measured in the same run by bench/latency (melmux only, neighbour idle,
// the same key count).
//
// Flood: a 200x50 pane running `base64 /dev/urandom`, its page opened
// through a byte-counting TCP forwarder (the way an ssh tunnel carries it),
// so the bytes per second are what goes on the wire, compressed as
// Chromium and the server negotiated; frames and their JSON are counted
// from the DevTools protocol's WebSocket events. The page load is the sum
// of its requests' encoded lengths (headers included).
//
// Everything runs under a temporary XDG_RUNTIME_DIR and XDG_STATE_HOME,
// with melmux, melmux-server and melmux-web built from this checkout unless
// -melmux names a directory that holds them (melmux-web from its split out
// of melmux-server on); every session it started is killed at the end.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

type config struct {
	bins, chromium, shots, xterm string
	keys, warmup, frames, rounds int
	gap, jitter, flood           time.Duration
	attached, keep, renderers    bool
}

func main() {
	var c config
	flag.StringVar(&c.bins, "melmux", "", "`DIR` holding melmux, melmux-server and melmux-web (default: build them from this checkout)")
	flag.StringVar(&c.chromium, "chromium", "", "Chromium `PATH` (default: chromium, chromium-browser, google-chrome on $PATH)")
	flag.StringVar(&c.shots, "screenshots", "", "take the screenshots into `DIR` instead of measuring")
	flag.IntVar(&c.keys, "n", 50, "keys measured per pane")
	flag.IntVar(&c.warmup, "warmup", 5, "keys typed first and not measured")
	flag.DurationVar(&c.gap, "gap", 100*time.Millisecond, "least time between an echo and the next key")
	flag.DurationVar(&c.jitter, "jitter", 50*time.Millisecond, "random extra time added to each gap, so keys do not lock onto the 50 ms frame clock")
	flag.DurationVar(&c.flood, "flood", 10*time.Second, "how long the flooding pane's page is counted (0 skips it)")
	flag.BoolVar(&c.attached, "attached", true, "also run bench/latency (melmux, neighbour idle) for the attached terminal's echo")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary directory")
	flag.BoolVar(&c.renderers, "renderers", false, "compare melmux's renderer with xterm.js instead (renderers.go; fetches xterm.js with npm)")
	flag.StringVar(&c.xterm, "xterm", "", "with -renderers: an unpacked @xterm/xterm `DIR` with addon-webgl.js in its lib (default: npm pack into the temporary directory)")
	flag.IntVar(&c.frames, "frames", 200, "with -renderers: frames of the flooding pane replayed")
	flag.IntVar(&c.rounds, "rounds", 3, "with -renderers: rounds, each renderer in turn")
	flag.Parse()
	if c.keys < 1 || c.warmup < 0 || c.gap < 0 || c.jitter < 0 || c.flood < 0 || c.frames < 1 || c.rounds < 1 {
		fmt.Fprintln(os.Stderr, "web: -n, -frames and -rounds must be at least 1; -warmup, -gap, -jitter and -flood must not be negative")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

// env is the private world the sessions run in.
type env struct {
	dir, bins string
	vars      []string
	sessions  []string
}

func (e *env) melmux(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(e.bins, "melmux"), args...)
	cmd.Env = e.vars
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("melmux %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
	}
	return string(out), err
}

// session starts session name running cmd and serves it; it returns the
// printed URL with its one-time code.
func (e *env) session(name string, cols, rows int, cmd string) (string, error) {
	if _, err := e.melmux("-s", name, "new", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "--", cmd); err != nil {
		return "", err
	}
	e.sessions = append(e.sessions, name)
	return e.serve(name)
}

func (e *env) serve(name string) (string, error) {
	out, err := e.melmux("-s", name, "web")
	return strings.TrimSpace(out), err
}

func (e *env) close() {
	for _, s := range e.sessions {
		e.melmux("-s", s, "kill-server")
	}
}

func newEnv(c config) (*env, error) {
	dir, err := os.MkdirTemp("", "melmux-bench-web")
	if err != nil {
		return nil, err
	}
	e := &env{dir: dir, bins: c.bins}
	for _, d := range []string{"run", "home", "bin"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	home := filepath.Join(dir, "home")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MELMUX_") || strings.HasPrefix(k, "XDG_") || k == "TMUX" || k == "HOME" || k == "PATH" || k == "PS1" {
			continue
		}
		e.vars = append(e.vars, kv)
	}
	e.vars = append(e.vars, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home,
		"HOME="+home, "PS1=$ ", "LANG=C.UTF-8", "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"))
	if e.bins == "" {
		e.bins = filepath.Join(dir, "bin")
		// melmux-agent is not needed: nothing here runs an agent verb.
		fmt.Fprintln(os.Stderr, "building ./cmd/melmux, ./cmd/melmux-server and ./cmd/melmux-web ...")
		b := exec.Command("go", "build", "-o", e.bins+"/", "./cmd/melmux", "./cmd/melmux-server", "./cmd/melmux-web")
		b.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := b.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	return e, nil
}

func findChromium(c config) (string, error) {
	if c.chromium != "" {
		return c.chromium, nil
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium, chromium-browser or google-chrome on $PATH: install one or give -chromium PATH")
}

func browser(ctx context.Context, c config, dir string, w, h int) (context.Context, context.CancelFunc, error) {
	path, err := findChromium(c)
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.UserDataDir(dir),
		chromedp.NoSandbox, chromedp.Flag("disable-gpu", true), chromedp.WindowSize(w, h))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelCtx := chromedp.NewContext(alloc)
	cancel := func() { cancelCtx(); cancelAlloc() }
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("start Chromium: %v", err)
	}
	return bctx, cancel, nil
}

func run(ctx context.Context, c config) error {
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	defer func() {
		e.close()
		if c.keep {
			fmt.Fprintln(os.Stderr, "kept", e.dir)
		} else {
			os.RemoveAll(e.dir)
		}
	}()
	if c.shots != "" {
		return screenshots(ctx, c, e)
	}
	if c.renderers {
		return renderers(ctx, c, e)
	}
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	rev, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	fmt.Printf("Run on %s, %s, %d cores, %s, melmux at %s; load average %s at the start.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), host, runtime.NumCPU(), runtime.Version(), strings.TrimSpace(string(rev)), strings.Join(strings.Fields(string(load))[:3], " "))
	if err := echo(ctx, c, e); err != nil {
		return err
	}
	if c.flood > 0 {
		if err := flood(ctx, c, e); err != nil {
			return err
		}
	}
	if c.attached {
		if err := attached(ctx, c, e); err != nil {
			return err
		}
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("\nLoad average %s at the end.\n", strings.Join(strings.Fields(string(load))[:3], " "))
	return nil
}

// measureJS is the page's stopwatch: from a key's keydown (its event
// timestamp, taken by the browser as the key came in) to the mutation
// that puts the wanted text into the pane's DOM.
const measureJS = `(() => {
  const L = window.__lat = {t0: 0, want: null, pane: 0, res: []};
  document.addEventListener('keydown', (e) => { if (L.want !== null && !L.t0) L.t0 = e.timeStamp; }, true);
  new MutationObserver(() => {
    if (L.want === null || !L.t0) return;
    const pre = document.querySelector('.pane[data-pane="' + L.pane + '"] pre');
    if (pre && pre.textContent.includes(L.want)) { L.res.push(performance.now() - L.t0); L.want = null; L.t0 = 0; }
  }).observe(document.getElementById('panes'), {subtree: true, childList: true, characterData: true});
  return true;
})()`

func do(ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) error {
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	return nil
}

func until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(50*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))
}

func paneText(id int) string {
	return fmt.Sprintf(`(document.querySelector('.pane[data-pane="%d"] pre') || {textContent: ''}).textContent`, id)
}

func echo(ctx context.Context, c config, e *env) error {
	shell, label := "sh", "shell (sh)"
	if p, err := exec.LookPath("bash"); err == nil {
		shell, label = p+" --norc --noprofile", "shell (bash)"
	}
	url, err := e.session("echo", 160, 40, shell)
	if err != nil {
		return err
	}
	if _, err := e.melmux("-s", "echo", "open-pane", "--layout", "right", "--", "stty raw -echo; exec cat"); err != nil {
		return err
	}
	bctx, cancel, err := browser(ctx, c, filepath.Join(e.dir, "chrome-echo"), 1400, 900)
	if err != nil {
		return err
	}
	defer cancel()
	if err := do(bctx, "log in with the printed link", chromedp.Navigate(url), chromedp.WaitVisible("#app"),
		until(paneText(1)+`.includes("$ ")`), until(`!!document.querySelector('.pane[data-pane="2"] pre')`),
		chromedp.Evaluate[chromedp.Void](measureJS)); err != nil {
		return err
	}
	letters := "abcdefghijklmnopqrstuvwxyz"
	results := map[string][]float64{}
	lost := map[string]int{}
	for _, p := range []struct {
		name   string
		id     int
		prefix string
	}{{label, 1, "$ "}, {"raw echo (cat)", 2, ""}} {
		if err := do(bctx, "focus the pane", chromedp.Click(fmt.Sprintf(`.pane[data-pane="%d"]`, p.id))); err != nil {
			return err
		}
		typed := ""
		for i := 0; i < c.warmup+c.keys; i++ {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			ch := string(letters[i%len(letters)])
			typed += ch
			want, _ := json.Marshal(p.prefix + typed)
			n, err := chromedp.Run(bctx, chromedp.Evaluate[int](fmt.Sprintf(`__lat.pane=%d; __lat.t0=0; __lat.want=%s; __lat.res.length`, p.id, want)))
			if err != nil {
				return err
			}
			if err := do(bctx, "type", chromedp.KeyEvent(ch)); err != nil {
				return err
			}
			wctx, wcancel := context.WithTimeout(bctx, 5*time.Second)
			err = chromedp.Do(wctx, chromedp.Poll[chromedp.Void](fmt.Sprintf(`__lat.res.length > %d`, n), chromedp.WithPollingInterval(5*time.Millisecond)))
			wcancel()
			if err != nil {
				if i >= c.warmup {
					lost[p.name]++
				}
				chromedp.Run(bctx, chromedp.Evaluate[chromedp.Void](`__lat.want = null`))
				continue
			}
			ms, err := chromedp.Run(bctx, chromedp.Evaluate[float64](`__lat.res[__lat.res.length-1]`))
			if err != nil {
				return err
			}
			if i >= c.warmup {
				results[p.name] = append(results[p.name], ms)
			}
			time.Sleep(c.gap + time.Duration(rand.Int64N(int64(c.jitter)+1)))
		}
	}
	fmt.Printf("Keystroke to echo in the page: keydown (its event timestamp) to the echo in the pane's DOM; %d keys per pane after %d warm-up, one at a time, %v + up to %v between an echo and the next key; ms:\n\n",
		c.keys, c.warmup, c.gap, c.jitter)
	fmt.Println("| pane | keys | lost | p50 | p90 | p99 | max | mean |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, name := range []string{label, "raw echo (cat)"} {
		r := results[name]
		slices.Sort(r)
		fmt.Printf("| %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f |\n", name, len(r), lost[name], pct(r, 50), pct(r, 90), pct(r, 99), pct(r, 100), mean(r))
	}
	fmt.Println()
	return nil
}

func pct(s []float64, p float64) float64 {
	if len(s) == 0 {
		return 0
	}
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

func mean(s []float64) float64 {
	var t float64
	for _, v := range s {
		t += v
	}
	return t / float64(max(1, len(s)))
}

// counter forwards TCP connections as an ssh tunnel's end does and counts
// the bytes coming back from the server.
type counter struct {
	ln   net.Listener
	down atomic.Int64
}

func newCounter(to string) (*counter, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &counter{ln: ln}
	go func() {
		for {
			a, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer a.Close()
				b, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer b.Close()
				go io.Copy(b, a)
				buf := make([]byte, 64<<10)
				for {
					n, err := b.Read(buf)
					c.down.Add(int64(n))
					if n > 0 {
						if _, err := a.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return c, nil
}

func flood(ctx context.Context, c config, e *env) error {
	url, err := e.session("flood", 200, 50, "base64 /dev/urandom")
	if err != nil {
		return err
	}
	rest, code, _ := strings.Cut(strings.TrimPrefix(url, "http://"), "/#code=")
	cnt, err := newCounter(rest)
	if err != nil {
		return err
	}
	defer cnt.ln.Close()
	bctx, cancel, err := browser(ctx, c, filepath.Join(e.dir, "chrome-flood"), 1800, 1000)
	if err != nil {
		return err
	}
	defer cancel()
	var mu sync.Mutex
	var loaded float64
	var frames, payload int64
	var ext string
	counting := false
	chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventLoadingFinished:
			loaded += ev.EncodedDataLength
		case *network.EventWebSocketHandshakeResponseReceived:
			for k, v := range ev.Response.Headers {
				if strings.EqualFold(k, "Sec-WebSocket-Extensions") {
					ext = fmt.Sprint(v)
				}
			}
		case *network.EventWebSocketFrameReceived:
			if counting {
				frames++
				payload += int64(len(ev.Response.PayloadData))
			}
		}
	})
	if err := do(bctx, "open the flooding pane's page through the counter", chromedp.Navigate("http://"+cnt.ln.Addr().String()+"/#code="+code),
		chromedp.WaitVisible("#app"), until(paneText(1)+`.length > 1000`)); err != nil {
		return err
	}
	page := func() float64 {
		mu.Lock()
		defer mu.Unlock()
		counting, frames, payload = true, 0, 0
		return loaded
	}()
	start, down0 := time.Now(), cnt.down.Load()
	select {
	case <-time.After(c.flood):
	case <-ctx.Done():
		return ctx.Err()
	}
	secs := time.Since(start).Seconds()
	wire := cnt.down.Load() - down0
	mu.Lock()
	defer mu.Unlock()
	if ext == "" {
		ext = "none"
	}
	fmt.Printf("Flooding pane (200x50, `base64 /dev/urandom`), its page in Chromium through a counting forwarder for %.1f s: %.1f frames/s, %.1f KB/s of JSON, %.1f KB/s on the wire (WebSocket extensions: %s; the wire figure counts TCP payload, not IP/TCP headers).\n",
		secs, float64(frames)/secs, float64(payload)/secs/1000, float64(wire)/secs/1000, ext)
	fmt.Printf("Page load: %.1f KB (index.html, app.js, app.css and the login, headers included, as Chromium counted them).\n\n", page/1000)
	return nil
}

// attached runs bench/latency for melmux's attached echo in this run.
func attached(ctx context.Context, c config, e *env) error {
	bin := filepath.Join(e.dir, "latency")
	if out, err := exec.Command("go", "build", "-o", bin, "./bench/latency").CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./bench/latency: %v\n%s", err, out)
	}
	fmt.Println("The attached terminal's echo, in the same run (bench/latency, melmux, neighbour idle, a raw-mode cat):")
	fmt.Println()
	cmd := exec.CommandContext(ctx, bin, "-mux", "melmux", "-cases", "idle", "-idle-panes", "0", "-rounds", "1",
		"-n", fmt.Sprint(c.keys), "-melmux", filepath.Join(e.bins, "melmux"))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}
