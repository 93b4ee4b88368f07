package main

// The renderer comparison (-renderers): melmux's own renderer of the
// session's rows against xterm.js, the browser terminal zellij's and
// ttyd's web clients use, on the frames of a flooding 200x50 pane.
//
// The frames are recorded from the real page: a session whose pane runs
// `base64 /dev/urandom` is served by `melmux web` and opened in Chromium,
// and the first -frames screen messages the page receives are kept (the
// DevTools protocol's WebSocket events). Each renderer is then given the
// same frames, one per animation frame, as a page that receives them
// would draw them:
//
//   - melmux: the real page, logged in to a session with an idle pane of
//     the same size, each frame handed to its WebSocket's onmessage (JSON
//     parse, the rows changed written into the DOM);
//   - xterm.js (its DOM renderer, the default, and the WebGL addon): a
//     page served by this program that opens a Terminal of the same size
//     and writes each frame as the escape sequences that draw its changed
//     rows (a cursor move, SGR and the text of each run, erase to the end
//     of the row), as a server that sends changes to xterm.js would.
//
// Time is the renderer's main-thread time (the DevTools protocol's
// Performance metrics: TaskDuration, and of it style and layout, read
// before and after the frames) less that of as many animation frames
// without frames, divided by the frames: what the frames cost the page,
// script, style, layout and paint, whatever the display's refresh. The
// WebGL addon draws with the software GL of a headless Chromium without a
// GPU here, which makes its time no guide to a phone's or a laptop's.
// Size is the bytes the page loads gzipped (as
// melmux-web serves them, gzip -9). Text is checked three ways on the last
// frame: the middle row's text in the DOM (innerText), found by the browser's
// find-in-page (window.find), and named in the accessibility tree that
// screen readers read (Accessibility.getFullAXTree).
//
// xterm.js is fetched at run time (`npm pack` of the versions below into
// the temporary directory) unless -xterm names an unpacked one; nothing of
// it is in the repository, and neither go build nor the tests need it.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// The xterm.js release measured: the newest on the npm registry when this
// was written.
const (
	xtermVersion = "6.0.0"
	webglVersion = "0.19.0"
)

// socketHook keeps the page's WebSockets where the replay finds them.
const socketHook = `(() => {
  window.__sockets = [];
  const S = window.WebSocket;
  window.WebSocket = function (url) { const ws = new S(url); window.__sockets.push(ws); return ws; };
})()`

// xtermPage is the xterm.js bench page; %d %d are the columns and rows.
const xtermPage = `<!doctype html>
<html><head><meta charset="utf-8">
<link rel="stylesheet" href="xterm.css">
<script src="xterm.js"></script>
<script src="addon-webgl.js"></script>
<style>body { margin: 0; background: #111; }</style>
</head><body><div id="t"></div>
<script>
const term = new Terminal({ cols: %d, rows: %d, fontSize: 13, scrollback: 1000, screenReaderMode: location.hash === '#sr' });
term.open(document.getElementById('t'));
window.renderer = 'dom';
if (location.hash === '#webgl') {
  try { const a = new WebglAddon.WebglAddon(); term.loadAddon(a); window.renderer = 'webgl'; }
  catch (e) { window.renderer = 'dom (the WebGL addon failed: ' + e.message + ')'; }
}
window.__frames = [];
const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
window.idle = async (n) => { for (let i = 0; i < n; i++) await raf(); await raf(); return true; };
window.replay = async () => {
  for (const f of window.__frames) { await new Promise((r) => term.write(f, r)); await raf(); }
  await raf();
  return true;
};
window.ready = true;
</script></body></html>`

// idleReplay is the replay's animation frames without the frames: what
// the page costs meanwhile without drawing anything, taken off.
const idleReplay = `(async () => {
  const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
  for (let i = 0; i <= window.__frames.length; i++) await raf();
  return true;
})()`

// melmuxReplay hands the page's WebSocket the frames, one per animation
// frame, as they would come from the server.
const melmuxReplay = `(async () => {
  const ws = window.__sockets[window.__sockets.length - 1];
  const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
  window.__handler = 0;
  for (const f of window.__frames) {
    const t0 = performance.now();
    ws.onmessage({ data: f });
    window.__handler += performance.now() - t0;
    await raf();
  }
  await raf();
  return true;
})()`

type rendererResult struct {
	name                string
	task, style, layout float64 // ms a frame, the idle animation frames' taken off
	idle                float64 // ms an idle animation frame
	nodes               float64
	heapMB              float64
	inDOM, found, inAX  bool
	note                string
}

func renderers(ctx context.Context, c config, e *env) error {
	xdir, err := fetchXterm(c, e)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	rev, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	fmt.Printf("Run on %s, %s, melmux at %s, xterm.js %s (WebGL addon %s); load average %s at the start.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), host, strings.TrimSpace(string(rev)), xtermVersion, webglVersion, strings.Join(strings.Fields(string(load))[:3], " "))
	if err := sizes(xdir); err != nil {
		return err
	}
	frames, err := recordFrames(ctx, c, e)
	if err != nil {
		return err
	}
	vt, err := framesVT(frames)
	if err != nil {
		return err
	}
	var inFrames, inVT int
	for i := range frames {
		inFrames += len(frames[i])
		inVT += len(vt[i])
	}
	fmt.Printf("%d frames of the flooding 200x50 pane recorded: %.1f KB of JSON a frame to melmux's page, %.1f KB of escape sequences a frame to xterm.js.\n\n",
		len(frames), float64(inFrames)/float64(len(frames))/1000, float64(inVT)/float64(len(vt))/1000)
	want := lastRowText(frames)
	var first screenFrame
	json.Unmarshal([]byte(frames[0]), &first)
	srv, base, err := serveXterm(xdir, first.Cols, first.Rows)
	if err != nil {
		return err
	}
	defer srv.Close()
	results := map[string][]rendererResult{}
	order := []string{"melmux (DOM rows)", "xterm.js, DOM renderer", "xterm.js, DOM renderer, screenReaderMode", "xterm.js, WebGL addon"}
	for round := 0; round < c.rounds; round++ {
		r, err := replayMelmux(ctx, c, e, frames, want)
		if err != nil {
			return err
		}
		results[order[0]] = append(results[order[0]], r)
		for i, hash := range []string{"", "#sr", "#webgl"} {
			r, err := replayXterm(ctx, c, e, base+"/"+hash, vt, want)
			if err != nil {
				return err
			}
			results[order[1+i]] = append(results[order[1+i]], r)
		}
	}
	fmt.Printf("Rendering the %d frames, one per animation frame, main-thread ms a frame (DevTools Performance metrics, less the same number of idle animation frames), the median of %d rounds taking turns:\n\n", len(frames), c.rounds)
	fmt.Println("| renderer | main thread | style + layout | DOM nodes | JS heap MB | text in the DOM | find-in-page | in the accessibility tree |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	var notes []string
	for _, name := range order {
		rs := results[name]
		med := func(f func(rendererResult) float64) float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			slices.Sort(v)
			return v[len(v)/2]
		}
		last := rs[len(rs)-1]
		fmt.Printf("| %s | %.2f | %.2f | %.0f | %.1f | %s | %s | %s |\n", name,
			med(func(r rendererResult) float64 { return r.task }),
			med(func(r rendererResult) float64 { return r.style + r.layout }), med(func(r rendererResult) float64 { return r.nodes }),
			med(func(r rendererResult) float64 { return r.heapMB }), yes(last.inDOM), yes(last.found), yes(last.inAX))
		if last.note != "" {
			notes = append(notes, name+": "+last.note)
		}
		var each []string
		for _, r := range rs {
			each = append(each, fmt.Sprintf("%.2f", r.task))
		}
		notes = append(notes, fmt.Sprintf("%s, task ms a frame by round: %s (an idle animation frame: %.2f ms, taken off)", name, strings.Join(each, ", "), med(func(r rendererResult) float64 { return r.idle })))
	}
	fmt.Println()
	for _, n := range notes {
		fmt.Println("- " + n)
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("\nLoad average %s at the end.\n", strings.Join(strings.Fields(string(load))[:3], " "))
	return nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// fetchXterm returns the directory of the xterm.js package, with the
// WebGL addon's lib/addon-webgl.js copied into its lib.
func fetchXterm(c config, e *env) (string, error) {
	if c.xterm != "" {
		return c.xterm, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errors.New("-renderers fetches xterm.js with npm, which is not on $PATH: install it, or give -xterm DIR (an unpacked @xterm/xterm, with addon-webgl.js in its lib)")
	}
	dir := filepath.Join(e.dir, "xterm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "npm pack @xterm/xterm@%s @xterm/addon-webgl@%s ...\n", xtermVersion, webglVersion)
	cmd := exec.Command("npm", "pack", "--silent", "@xterm/xterm@"+xtermVersion, "@xterm/addon-webgl@"+webglVersion)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm pack: %v\n%s", err, out)
	}
	for _, p := range []struct{ tgz, to string }{{"xterm-xterm-" + xtermVersion + ".tgz", "xterm"}, {"xterm-addon-webgl-" + webglVersion + ".tgz", "webgl"}} {
		to := filepath.Join(dir, p.to)
		os.MkdirAll(to, 0o755)
		if out, err := exec.Command("tar", "-xzf", filepath.Join(dir, p.tgz), "-C", to, "--strip-components=1").CombinedOutput(); err != nil {
			return "", fmt.Errorf("tar %s: %v\n%s", p.tgz, err, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "webgl", "lib", "addon-webgl.js"))
	if err != nil {
		return "", err
	}
	x := filepath.Join(dir, "xterm")
	return x, os.WriteFile(filepath.Join(x, "lib", "addon-webgl.js"), b, 0o644)
}

func gz(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Len()
}

// sizes prints what each renderer makes a page load.
func sizes(xdir string) error {
	var plain, packed int
	var names []string
	err := filepath.WalkDir("internal/web/static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		plain += len(b)
		packed += gz(b)
		names = append(names, filepath.Base(p))
		return nil
	})
	if err != nil {
		return fmt.Errorf("run -renderers from the repository's root (it reads internal/web/static): %v", err)
	}
	fmt.Println("What the page loads (gzip -9, as melmux-web serves it; headers not counted):")
	fmt.Println()
	fmt.Println("| part | bytes | gzipped |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| melmux's whole page (%s), its renderer included | %d | %d |\n", strings.Join(names, ", "), plain, packed)
	for _, f := range []struct{ name, path string }{
		{"xterm.js " + xtermVersion + " (lib/xterm.js)", "lib/xterm.js"},
		{"xterm.js's stylesheet (css/xterm.css)", "css/xterm.css"},
		{"the WebGL addon " + webglVersion + " (lib/addon-webgl.js)", "lib/addon-webgl.js"},
	} {
		b, err := os.ReadFile(filepath.Join(xdir, f.path))
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %d | %d |\n", f.name, len(b), gz(b))
	}
	fmt.Println()
	return nil
}

// recordFrames opens a flooding pane's page and keeps the screen messages
// it receives.
func recordFrames(ctx context.Context, c config, e *env) ([]string, error) {
	url, err := e.session("record", 200, 50, "base64 /dev/urandom")
	if err != nil {
		return nil, err
	}
	defer e.melmux("-s", "record", "kill-server")
	bctx, cancel, err := browser(ctx, c, filepath.Join(e.dir, "chrome-record"), 1800, 1000)
	if err != nil {
		return nil, err
	}
	defer cancel()
	var mu sync.Mutex
	var frames []string
	done := make(chan struct{})
	chromedp.Listen(bctx, func(ev any) {
		f, ok := ev.(*network.EventWebSocketFrameReceived)
		if !ok || !bytes.HasPrefix(f.Response.PayloadData, []byte(`{"t":"screen"`)) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if len(frames) < c.frames {
			frames = append(frames, string(f.Response.PayloadData))
			if len(frames) == c.frames {
				close(done)
			}
		}
	})
	if err := do(bctx, "open the flooding pane's page", chromedp.Navigate(url), chromedp.WaitVisible("#app")); err != nil {
		return nil, err
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		return nil, fmt.Errorf("recorded %d frames of the flooding pane in 2 minutes, want %d", len(frames), c.frames)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(frames), nil
}

type screenFrame struct {
	Cols, Rows int
	Full       bool
	Lines      [][2]json.RawMessage
	Cursor     [3]int
}

// framesVT is each frame as the escape sequences that draw it.
func framesVT(frames []string) ([]string, error) {
	out := make([]string, len(frames))
	for i, f := range frames {
		var m screenFrame
		if err := json.Unmarshal([]byte(f), &m); err != nil {
			return nil, fmt.Errorf("frame %d: %v", i, err)
		}
		var b strings.Builder
		if m.Full {
			b.WriteString("\x1b[H\x1b[2J")
		}
		for _, l := range m.Lines {
			var y int
			var runs [][]any
			if err := json.Unmarshal(l[0], &y); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(l[1], &runs); err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "\x1b[%d;1H", y+1)
			for _, r := range runs {
				text, _ := r[0].(string)
				if len(r) == 4 {
					b.WriteString(sgr(int(r[1].(float64)), int(r[2].(float64)), int(r[3].(float64))))
				}
				b.WriteString(text)
				if len(r) == 4 {
					b.WriteString("\x1b[m")
				}
			}
			b.WriteString("\x1b[K")
		}
		fmt.Fprintf(&b, "\x1b[%d;%dH", m.Cursor[1]+1, m.Cursor[0]+1)
		if m.Cursor[2] == 1 {
			b.WriteString("\x1b[?25h")
		} else {
			b.WriteString("\x1b[?25l")
		}
		out[i] = b.String()
	}
	return out, nil
}

// sgr is the SGR of a run's colours and flags (melmux's run encoding:
// internal/server/web_rows.go).
func sgr(fg, bg, fl int) string {
	p := []string{"0"}
	for bit, code := range map[int]string{1: "1", 2: "2", 4: "3", 8: "4", 16: "5", 32: "7", 64: "8", 128: "9"} {
		if fl&bit != 0 {
			p = append(p, code)
		}
	}
	color := func(c, base, bright, ext int) {
		switch {
		case c < 0:
		case c < 8:
			p = append(p, strconv.Itoa(base+c))
		case c < 16:
			p = append(p, strconv.Itoa(bright+c-8))
		case c < 256:
			p = append(p, fmt.Sprintf("%d;5;%d", ext, c))
		default:
			p = append(p, fmt.Sprintf("%d;2;%d;%d;%d", ext, c>>16&255, c>>8&255, c&255))
		}
	}
	color(fg, 30, 90, 38)
	color(bg, 40, 100, 48)
	return "\x1b[" + strings.Join(p, ";") + "m"
}

// lastRowText is the first 40 characters of the middle row of the
// screen the frames leave, to look for.
func lastRowText(frames []string) string {
	rows := map[int]string{}
	n := 0
	for _, f := range frames {
		var m screenFrame
		json.Unmarshal([]byte(f), &m)
		if m.Full {
			rows = map[int]string{}
		}
		n = m.Rows
		for _, l := range m.Lines {
			var y int
			var runs [][]any
			json.Unmarshal(l[0], &y)
			json.Unmarshal(l[1], &runs)
			var s string
			for _, r := range runs {
				t, _ := r[0].(string)
				s += t
			}
			rows[y] = s
		}
	}
	for y := n / 2; y < n; y++ {
		if s := strings.TrimSpace(rows[y]); len(s) >= 40 {
			return s[:40]
		}
	}
	return ""
}

// serveXterm serves the xterm.js bench page and the package's files.
func serveXterm(xdir string, cols, rows int) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, xtermPage, cols, rows)
	})
	for name, path := range map[string]string{"/xterm.js": "lib/xterm.js", "/xterm.css": "css/xterm.css", "/addon-webgl.js": "lib/addon-webgl.js"} {
		mux.HandleFunc(name, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, filepath.Join(xdir, path)) })
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String(), nil
}

// metrics reads the page's Performance metrics.
func metrics(ctx context.Context) (map[string]float64, error) {
	res, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, x := range res.Metrics {
		m[x.Name] = x.Value
	}
	return m, nil
}

// feed puts the frames into the page's window.__frames, a slice at a time.
func feed(ctx context.Context, frames []string) error {
	for i := 0; i < len(frames); i += 50 {
		b, _ := json.Marshal(frames[i:min(i+50, len(frames))])
		if err := do(ctx, "hand the page its frames", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`window.__frames = (window.__frames || []).concat(%s)`, b))); err != nil {
			return err
		}
	}
	return nil
}

// measure runs the replay and reads what it cost and what the page shows.
func measure(ctx context.Context, name, replay string, n int, want string) (rendererResult, error) {
	r := rendererResult{name: name}
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		return r, err
	}
	run := func(js string) (map[string]float64, error) {
		before, err := metrics(ctx)
		if err != nil {
			return nil, err
		}
		tctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
			return nil, fmt.Errorf("%s: replay: %v", name, err)
		}
		after, err := metrics(ctx)
		if err != nil {
			return nil, err
		}
		d := map[string]float64{}
		for k, v := range after {
			d[k] = v - before[k]
		}
		d["Nodes"], d["JSHeapUsedSize"] = after["Nodes"], after["JSHeapUsedSize"]
		return d, nil
	}
	idle, err := run(idleReplay)
	if err != nil {
		return r, err
	}
	busy, err := run(replay)
	if err != nil {
		return r, err
	}
	per := func(k string) float64 { return (busy[k] - idle[k]) * 1000 / float64(n) }
	// Not ScriptDuration: it leaves out the replay's own continuations,
	// where melmux's page handles its messages (its handler is timed in
	// the page instead).
	r.task, r.style, r.layout = per("TaskDuration"), per("RecalcStyleDuration"), per("LayoutDuration")
	r.idle = idle["TaskDuration"] * 1000 / float64(n)
	after := busy
	r.heapMB = after["JSHeapUsedSize"] / (1 << 20)
	// The nodes in the document now (the metric's Nodes counts those
	// not yet collected too).
	r.nodes, _ = chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL); let n = 0; while (w.nextNode()) n++; return n; })()`))
	w, _ := json.Marshal(want)
	r.inDOM, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.body.innerText.includes(%s)`, w)))
	r.found, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`window.getSelection().removeAllRanges(), window.find(%s)`, w)))
	// xterm.js's screen reader rows follow the screen a moment later.
	for end := time.Now().Add(5 * time.Second); !r.inAX && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		tree, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		if err != nil {
			break
		}
		for _, n := range tree.Nodes {
			var s string
			if !n.Ignored && n.Name != nil && json.Unmarshal(n.Name.Value, &s) == nil && strings.Contains(s, want) {
				r.inAX = true
				break
			}
		}
	}
	return r, nil
}

func replayMelmux(ctx context.Context, c config, e *env, frames []string, want string) (rendererResult, error) {
	name := fmt.Sprintf("replay%d", time.Now().UnixNano())
	url, err := e.session(name, 200, 50, "sleep 100000")
	if err != nil {
		return rendererResult{}, err
	}
	defer e.melmux("-s", name, "kill-server")
	bctx, cancel, err := browser(ctx, c, filepath.Join(e.dir, "chrome-"+name), 1800, 1000)
	if err != nil {
		return rendererResult{}, err
	}
	defer cancel()
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: socketHook}); err != nil {
		return rendererResult{}, err
	}
	if err := do(bctx, "open the idle pane's page", chromedp.Navigate(url), chromedp.WaitVisible("#app"),
		until(`!!document.querySelector('.pane[data-pane="1"] pre div')`)); err != nil {
		return rendererResult{}, err
	}
	if err := feed(bctx, frames); err != nil {
		return rendererResult{}, err
	}
	r, err := measure(bctx, "melmux", melmuxReplay, len(frames), want)
	if err == nil {
		ms, _ := chromedp.Run(bctx, chromedp.Evaluate[float64](`window.__handler`))
		r.note = fmt.Sprintf("its message handler (JSON, the rows into the DOM) took %.3f ms a frame by performance.now()", ms/float64(len(frames)))
	}
	return r, err
}

func replayXterm(ctx context.Context, c config, e *env, url string, frames []string, want string) (rendererResult, error) {
	bctx, cancel, err := browser(ctx, c, filepath.Join(e.dir, fmt.Sprintf("chrome-xterm%d", time.Now().UnixNano())), 1800, 1000)
	if err != nil {
		return rendererResult{}, err
	}
	defer cancel()
	if err := do(bctx, "open the xterm.js page", chromedp.Navigate(url), until(`window.ready === true`)); err != nil {
		return rendererResult{}, err
	}
	if err := feed(bctx, frames); err != nil {
		return rendererResult{}, err
	}
	r, err := measure(bctx, "xterm.js", `window.replay()`, len(frames), want)
	if err != nil {
		return r, err
	}
	if got, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`window.renderer`)); got != "dom" && got != "webgl" {
		r.note = got
	} else if strings.Contains(url, "#webgl") && got != "webgl" {
		r.note = "the WebGL addon did not load"
	}
	return r, nil
}
