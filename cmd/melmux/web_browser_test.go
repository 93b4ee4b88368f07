package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/internal/testreq"
	// The test binary is melmux-web too: the session's server runs it as
	// `melmux __web` for `melmux web`.
	_ "github.com/melmux/melmux/internal/web"
)

// chromium returns the path of a Chromium-family browser, or skips (fails
// with MELMUX_REQUIRE_CHROMIUM=1, as CI sets it) when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testreq.Skip(t, "no chromium/chrome/edge on PATH (Debian's chromium)", "MELMUX_REQUIRE_CHROMIUM")
	return ""
}

// claudeStandIn asks what Claude Code asks before running a command and
// takes one key, as its menus do; then it works on.
const claudeStandIn = `#!/bin/sh
printf 'Bash command\n  go test ./...\n\nDo you want to proceed?\n\342\235\257 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n'
stty -icanon -echo min 1
dd bs=1 count=1 >/dev/null 2>&1
printf '\033[2J\033[H'
printf '\342\234\273 Running the tests\342\200\246 (3s \302\267 esc to interrupt)\n'
sleep 600
`

// browser starts a headless Chromium for the test, with a private profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox, chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-smooth-scrolling", true), chromedp.WindowSize(1400, 900))
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// do runs steps with a bound that a loaded machine meets.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	page := ctx
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		// What the page showed, to see why.
		pctx, pcancel := context.WithTimeout(page, 10*time.Second)
		defer pcancel()
		body, err2 := chromedp.Run(pctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText + "\n" + document.querySelector("#panes").innerHTML.slice(0, 2000)`))
		t.Fatalf("%s: %v\nthe page (%v):\n%s", what, err, err2, body)
	}
}

// until waits for a JavaScript expression to be true in the page.
func until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(50*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))
}

func paneText(id int) string {
	return fmt.Sprintf(`(document.querySelector('.pane[data-pane="%d"] pre') || {textContent: ''}).textContent`, id)
}

// TestWebInChromium drives the real page in the real Chromium against a
// real session: a token's login, a pane's text, typing a command and its
// output, answering an agent's question from its button, a read-only token
// refused on typing, another site's page refused its WebSocket, and a bind
// to every address without TLS refused.
func TestWebInChromium(t *testing.T) {
	ctx := browser(t)
	se := newSessionEnv(t)
	bin := filepath.Join(se.home, "bin")
	os.MkdirAll(bin, 0o755)
	testexec.Write(t, filepath.Join(bin, "claude"), []byte(claudeStandIn))
	se.env = append(se.env, "PATH="+bin+":"+os.Getenv("PATH"))
	se.mustT(t, "new", "-d", "-x", "120", "-y", "30", "--", "sh")
	secret := strings.TrimSpace(se.mustT(t, "web", "token", "create", "--name", "phone"))
	roSecret := strings.TrimSpace(se.mustT(t, "web", "token", "create", "--read-only", "--name", "watcher"))
	url := strings.TrimSpace(se.mustT(t, "web"))
	base, code, ok := strings.Cut(url, "/#code=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || code == "" {
		t.Fatalf("melmux web printed %q, want http://127.0.0.1:PORT/#code=CODE", url)
	}

	// Without the cookie the page's WebSocket is refused and it asks for a login.
	do(t, ctx, "open the page", chromedp.Navigate(base+"/"), chromedp.WaitVisible("#login"))
	do(t, ctx, "log in with the token", chromedp.SendKeys("#token", secret), chromedp.Click("#loginbtn"),
		chromedp.WaitVisible("#app"), until(paneText(1)+`.includes("$ ")`))

	do(t, ctx, "type a command", chromedp.Click(`.pane[data-pane="1"]`), chromedp.SendKeys("#line", "echo web-$((6*7))\n"),
		until(paneText(1)+`.includes("web-42")`))
	if out := se.mustT(t, "read-pane", "-t", "1"); !strings.Contains(out, "\nweb-42") {
		t.Errorf("the pane after the page typed:\n%s", out)
	}

	// An agent asks; its question shows with its options as buttons, and
	// the page's answer goes through answer, audited as the web's.
	se.mustT(t, "open-pane", "--layout", "tab", "--", "claude")
	se.mustT(t, "wait", "-t", "2", "--state", "waiting", "--timeout", "30s")
	do(t, ctx, "see the question", until(`[...document.querySelectorAll('#agentlist li[data-pane="2"] button.opt')].some(b => b.textContent.includes("Yes"))`),
		until(`document.querySelector('#agentlist li[data-pane="2"]').textContent.includes("Do you want to proceed?")`))
	do(t, ctx, "answer it", chromedp.Click(`#agentlist li[data-pane="2"] button.opt`),
		until(`document.querySelector('#msg').textContent.includes("answered")`),
		until(`!document.querySelector('#agentlist li[data-pane="2"] button.opt')`))
	se.mustT(t, "wait", "-t", "2", "--state", "working", "--timeout", "30s")
	audit, err := os.ReadFile(filepath.Join(se.home, "melmux", "audit.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"by":"web"`) || !strings.Contains(string(audit), `"key":"1"`) {
		t.Errorf("audit log (%v):\n%s", err, audit)
	}

	// A read-only token watches from another browser, and its typing is refused.
	ro := browser(t)
	do(t, ro, "log in read-only", chromedp.Navigate(base+"/"), chromedp.WaitVisible("#login"),
		chromedp.SendKeys("#token", roSecret), chromedp.Click("#loginbtn"), chromedp.WaitVisible("#app"),
		until(`document.querySelector('#status').textContent.includes("read-only")`))
	do(t, ro, "see pane 1", until(`document.querySelectorAll('#tabs button').length === 2`), chromedp.Click(`#tabs button`),
		until(paneText(1)+`.includes("web-42")`))
	do(t, ro, "type read-only", chromedp.Click(`.pane[data-pane="1"]`), chromedp.SendKeys(`.pane[data-pane="1"]`, "x"),
		until(`document.querySelector('#msg').textContent.includes("read-only")`))
	if out := se.mustT(t, "read-pane", "-t", "1"); strings.Contains(strings.TrimRight(out, "\n "), "$ x") {
		t.Errorf("a read-only page typed into the pane:\n%s", out)
	}

	// Another site's page, opened in the same browser that holds the
	// cookie, tries the WebSocket and a login: both refused.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><script>
const ws = new WebSocket(%q);
ws.onopen = () => { document.title = 'open'; };
ws.onmessage = (e) => { document.title = 'read: ' + e.data.slice(0, 40); };
ws.onerror = () => { document.title = 'refused'; };
</script>`, "ws"+strings.TrimPrefix(base, "http")+"/ws")
	}))
	defer evil.Close()
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1) // another site
	var title string
	do(t, ctx, "another site's WebSocket", chromedp.Navigate(evilURL), until(`document.title !== ''`))
	title, _ = chromedp.Run(ctx, chromedp.Title())
	if title != "refused" {
		t.Errorf("another site's WebSocket: %q, want refused", title)
	}
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(`{"token":"`+secret+`"}`))
	req.Header.Set("Origin", evilURL)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a login with another Origin: %s, want 403", resp.Status)
	}
	resp, err = http.Get(base + "/ws")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the WebSocket without cookie or Origin: %s", resp.Status)
	}

	if out := se.mustT(t, "web", "--status"); !strings.Contains(out, "serving session main on "+base) {
		t.Errorf("web --status: %q", out)
	}
	se.mustT(t, "web", "--stop")
	if _, err := se.run("web", "--listen", "0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "--tls-cert FILE --tls-key FILE") {
		t.Errorf("web --listen 0.0.0.0:0 without TLS: %v, want a refusal saying how", err)
	}
	if out := se.mustT(t, "web", "--status"); !strings.Contains(out, "is not served") {
		t.Errorf("web --status after the refusal: %q", out)
	}
}

// claudeTurn is a Claude Code stand-in that works on a turn until it is
// sent a key, then waits at its prompt.
const claudeTurn = `#!/bin/sh
stty -icanon -echo min 1
printf '\342\234\273 Working on it\342\200\246 (esc to interrupt)\n'
dd bs=1 count=1 >/dev/null 2>&1
printf '\033[2J\033[H\342\227\217 Done.\n\n\342\235\257 \n'
sleep 600
`

// pageHooks records what the page does that a test cannot see in its
// DOM: the notifications it makes (the real ones still made), its
// WebSockets (so one can be closed, as a network would), and it makes the
// page think it is not focused, as a page in the background.
const pageHooks = `(() => {
  window.__notes = [];
  const N = window.Notification;
  function W(title, opts) {
    window.__notes.push({ title, body: (opts || {}).body || '' });
    try { return new N(title, opts); } catch (e) { return {}; }
  }
  Object.defineProperty(W, 'permission', { get: () => N.permission });
  W.requestPermission = (...a) => N.requestPermission(...a);
  window.Notification = W;
  document.hasFocus = () => false;
  window.__sockets = [];
  const S = window.WebSocket;
  window.WebSocket = function (url) {
    const ws = new S(url);
    ws.states = 0;
    ws.addEventListener('message', (e) => { if (e.data.startsWith('{"t":"state"')) ws.states++; });
    window.__sockets.push(ws);
    return ws;
  };
})()`

// TestWebHistoryAndTurnsInChromium: a pane's history is scrolled back in
// the page with the mouse wheel, read from the session a page at a time
// up to its first line, and the view stays there while the pane prints
// on; the way back to the bottom ends it; on a phone, the pane's history
// button is the way in. A wide character takes two
// columns, a colour and the cursor show, a hidden cursor does not; a
// failed login is in the session's log. An agent that finishes a turn
// is notified once (the permission granted, the page in the background),
// not again when the page reconnects, nor when it is loaded again.
func TestWebHistoryAndTurnsInChromium(t *testing.T) {
	ctx := browser(t)
	se := newSessionEnv(t)
	bin := filepath.Join(se.home, "bin")
	os.MkdirAll(bin, 0o755)
	testexec.Write(t, filepath.Join(bin, "claude"), []byte(claudeTurn))
	se.env = append(se.env, "PATH="+bin+":"+os.Getenv("PATH"))
	se.mustT(t, "new", "-d", "-x", "100", "-y", "20", "--", "sh", "-c", `seq -f "hist-%g." 1 500; exec sh`)
	url := strings.TrimSpace(se.mustT(t, "web"))
	base, _, _ := strings.Cut(url, "/#code=")
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: base}); err != nil {
		t.Fatalf("grant notifications: %v", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageHooks}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the page", chromedp.Navigate(url), chromedp.WaitVisible("#app"), until(paneText(1)+`.includes("hist-500.")`))

	// The wheel over the pane, until its first line is in the DOM and the
	// view at the top.
	const hist = `document.querySelector('.pane[data-pane="1"] .hist')`
	const first = `[...` + hist + `.children].find((d) => d.textContent === 'hist-1.')`
	x, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('.pane[data-pane="1"] .body').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+first+`) && document.querySelector('.pane[data-pane="1"] .body').scrollTop === 0`))
		if err != nil {
			t.Fatal(err)
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			do(t, ctx, "scroll back to line 1", until(`false`))
		}
		do(t, ctx, "turn the wheel", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x[0], x[1], func(p *input.DispatchMouseEventParams) {
			// The protocol wants deltaX too, which cdproto leaves out when 0.
			p.DeltaX, p.DeltaY = 0.001, -1500
		}))
		// The rows above are read as the view comes near them: wait for
		// what the wheel asked for, or for nothing more to ask.
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = chromedp.Do(wctx, chromedp.Poll[chromedp.Void](`!document.querySelector('.pane[data-pane="1"]').classList.contains('back') || `+hist+`.childElementCount > 0`, chromedp.WithPollingInterval(20*time.Millisecond)))
		cancel()
	}
	do(t, ctx, "see where the view is", until(`document.querySelector('.pane[data-pane="1"] .backbar').textContent.includes("history: lines 1–")`))
	where := `(() => { const d = ` + first + `, b = document.querySelector('.pane[data-pane="1"] .body'); return d.getBoundingClientRect().top - b.getBoundingClientRect().top; })()`
	top0, err := chromedp.Run(ctx, chromedp.Evaluate[float64](where))
	if err != nil {
		t.Fatal(err)
	}
	// Output goes on: the screen changes below, the view stays, and the
	// page says lines came.
	se.mustT(t, "send-keys", "-t", "1", `seq -f "more-%g." 1 50<Enter>`)
	do(t, ctx, "the pane prints on", until(paneText(1)+`.includes("more-50.")`),
		until(`document.querySelector('.pane[data-pane="1"] .gap').textContent.includes("newer line")`))
	if top1, err := chromedp.Run(ctx, chromedp.Evaluate[float64](where)); err != nil || top1 != top0 {
		t.Errorf("line 1's row moved from %v to %v (%v) while the pane printed", top0, top1, err)
	}
	do(t, ctx, "back to live", chromedp.Click(`.pane[data-pane="1"] .backbar button`),
		until(hist+`.childElementCount === 0`), until(`document.querySelector('.pane[data-pane="1"] .backbar').hidden`))

	// On a phone, a pane's "history" button is the way in.
	do(t, ctx, "a phone's history", chromedp.EmulateViewport(390, 844, func(p *emulation.SetDeviceMetricsOverrideParams, tp *emulation.SetTouchEmulationEnabledParams) {
		p.Mobile, tp.Enabled = true, true
	}), until(`getComputedStyle(document.querySelector('#panepick')).display !== 'none'`),
		chromedp.Click(`.pane[data-pane="1"] .histbtn`), until(hist+`.childElementCount > 0`),
		until(`!document.querySelector('.pane[data-pane="1"] .backbar').hidden`),
		chromedp.Click(`.pane[data-pane="1"] .backbar button`), until(hist+`.childElementCount === 0`),
		chromedp.EmulateViewport(1400, 900))

	// The cursor, a wide character and a colour, as the terminal shows them.
	se.mustT(t, "send-keys", "-t", "1", "-l", `printf 'W:世|\033[31mR\033[m\n'`)
	se.mustT(t, "send-keys", "-t", "1", "<Enter>")
	const row = `[...document.querySelectorAll('.pane[data-pane="1"] pre > div')].find((d) => d.textContent === 'W:世|R')`
	do(t, ctx, "see the wide character", until(`!!(`+row+`)`))
	look, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
  const d = `+row+`, w = d.querySelector('span.w'), red = [...d.querySelectorAll('span')].find((s) => s.textContent === 'R');
  const at = (node, i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1); return r.getBoundingClientRect(); };
  const x0 = at(d.firstChild, 0).left, ch = at(d.firstChild, 0).width, bar = at(w.nextSibling, 0).left;
  const cur = document.querySelector('.pane[data-pane="1"] pre span.cur.on');
  return [w.textContent, Math.round((bar - x0) / ch * 10) / 10, red && red.style.color, cur && cur.parentElement.textContent.startsWith('$ ')].join(' ');
})()`))
	if want := "世 4 rgb(205, 0, 0) true"; err != nil || look != want {
		t.Errorf("the wide character, the bar after it in columns, the colour and the cursor: %q (%v), want %q", look, err, want)
	}
	se.mustT(t, "send-keys", "-t", "1", "-l", `printf '\033[?25l'`)
	se.mustT(t, "send-keys", "-t", "1", "<Enter>")
	do(t, ctx, "the cursor hidden", until(`!document.querySelector('.pane[data-pane="1"] pre span.cur')`))

	// A failed login is in the session's log, with where it came from.
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(`{"token":"mmx_wrong"}`))
	req.Header.Set("Origin", base)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %s, want 401", resp.Status)
	}
	logged := func() bool {
		b, _ := os.ReadFile(filepath.Join(se.home, "melmux", "main.log"))
		return strings.Contains(string(b), "web: failed login") && strings.Contains(string(b), "from=127.0.0.1:")
	}
	for deadline := time.Now().Add(time.Minute); !logged(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(se.home, "melmux", "main.log"))
			t.Fatalf("the failed login is not in the session's log:\n%s", b)
		}
	}

	// An agent finishes a turn while the page is in the background.
	se.mustT(t, "open-pane", "--layout", "tab", "--", "claude")
	se.mustT(t, "wait", "-t", "2", "--state", "working", "--timeout", "30s")
	const row2 = `document.querySelector('#agentlist li[data-pane="2"] .state')`
	do(t, ctx, "see it work", until(row2+` && `+row2+`.textContent === "working"`))
	se.mustT(t, "send-keys", "-t", "2", "x")
	se.mustT(t, "wait", "-t", "2", "--state", "idle", "--timeout", "30s")
	const done = `__notes.filter((n) => n.title.includes("pane 2 finished")).length`
	do(t, ctx, "be notified", until(done+` === 1`))
	do(t, ctx, "reconnect", chromedp.Evaluate[chromedp.Void](`__sockets[0].close()`),
		until(`__sockets.length === 2 && __sockets[1].states > 0`))
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`__notes.length`)); err != nil || n != 1 {
		t.Errorf("after a reconnect: %d notifications (%v), want the one", n, err)
	}
	do(t, ctx, "load the page again", chromedp.Navigate(base+"/"), chromedp.WaitVisible("#app"),
		until(`__sockets.length === 1 && __sockets[0].states > 0`), until(row2+` && `+row2+`.textContent === "idle"`))
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`__notes.length`)); err != nil || n != 0 {
		t.Errorf("after the page was loaded again: %d notifications (%v), want none", n, err)
	}
}
