package web

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/webtoken"
	"github.com/melmux/melmux/internal/webwire"
)

// fake is a session of one pane whose screen the test writes.
type fake struct {
	mu     sync.Mutex
	ch     chan struct{}
	rows   []string
	hist   int
	typed  []string
	answer []string
}

func newFake(rows ...string) *fake { return &fake{ch: make(chan struct{}), rows: rows} }

func (f *fake) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ch
}

// set changes the screen's row y (or nothing, y < 0) and signals a change.
func (f *fake) set(y int, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if y >= 0 {
		f.rows[y] = text
	}
	close(f.ch)
	f.ch = make(chan struct{})
}

func (f *fake) State() State {
	return State{Session: "t", Cols: 20, Rows: len(f.rows), Tabs: []Tab{{Panes: []PaneInfo{{ID: 1, W: 20, H: len(f.rows)}}}}}
}

func (f *fake) cols() int {
	n := 20
	for _, r := range f.rows {
		n = max(n, len([]rune(r)))
	}
	return n
}

// Screen encodes each row as the session does: one run of default
// colours, none for a blank row.
func (f *fake) Screen(id int) *webwire.ScreenResult {
	if id != 1 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &webwire.ScreenResult{Cols: f.cols(), Rows: len(f.rows), Hist: uint64(f.hist) + 1}
	for _, r := range f.rows {
		enc := json.RawMessage("[]")
		if r != "" {
			b, _ := json.Marshal([][]string{{r}})
			enc = b
		}
		s.Lines = append(s.Lines, enc)
	}
	return s
}

// History is a history of hist lines "h0".."h{hist-1}" at places 1 on.
func (f *fake) History(ctx context.Context, id int, p webwire.HistoryParams) *webwire.HistoryResult {
	if id != 1 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	top := uint64(f.hist) + 1
	to := top
	if p.Before > 0 {
		to = min(p.Before, top)
	}
	from := max(1, int(to)-p.N)
	r := &webwire.HistoryResult{First: uint64(from), Oldest: 1, Top: top}
	for i := from; i < int(to); i++ {
		b, _ := json.Marshal([][]string{{fmt.Sprintf("h%d", i-1)}})
		r.Lines = append(r.Lines, b)
	}
	return r
}

func (f *fake) Type(ctx context.Context, id int, text string, keys bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.typed = append(f.typed, text)
	return nil
}

func (f *fake) Answer(ctx context.Context, id int, choice, question string) (proto.AnswerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = append(f.answer, choice)
	return proto.AnswerResult{Pane: id, Gone: true, Question: &proto.Question{Text: question}}, nil
}

func (f *fake) typedText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.typed, "|") + strings.Join(f.answer, "|")
}

// syncBuf is a log the server writes from its goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type rig struct {
	t      *testing.T
	srv    *Server
	be     *fake
	tokens *webtoken.Store
	log    *syncBuf
	base   string // http://127.0.0.1:PORT
}

func start(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: t, be: newFake("hello", "", ""), tokens: webtoken.Open(filepath.Join(t.TempDir(), "tokens.json")), log: &syncBuf{}}
	srv, err := Start(Config{Tokens: r.tokens, Backend: r.be, Log: slog.New(slog.NewTextHandler(r.log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	r.srv, r.base = srv, "http://"+srv.Addr()
	return r
}

func (r *rig) token(name string, readOnly bool) string {
	r.t.Helper()
	secret, _, err := r.tokens.Create(name, readOnly)
	if err != nil {
		r.t.Fatal(err)
	}
	return secret
}

// post sends a login as the page does, with origin as its Origin ("" for none).
func (r *rig) post(path, origin, body string) *http.Response {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// login returns the session cookie of a login with the token.
func (r *rig) login(secret string) *http.Cookie {
	r.t.Helper()
	resp := r.post("/login", r.base, `{"token":"`+secret+`"}`)
	if resp.StatusCode != 200 {
		r.t.Fatalf("login: %s", resp.Status)
	}
	for _, c := range resp.Cookies() {
		return c
	}
	r.t.Fatal("login set no cookie")
	return nil
}

// dial opens the page's WebSocket with the cookie and Origin given.
func (r *rig) dial(cookie *http.Cookie, origin string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	if cookie != nil {
		h.Set("Cookie", cookie.Name+"="+cookie.Value)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.base, "http")+"/ws", &websocket.DialOptions{HTTPHeader: h})
	if c != nil {
		r.t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func (r *rig) mustDial(cookie *http.Cookie) *websocket.Conn {
	r.t.Helper()
	c, _, err := r.dial(cookie, r.base)
	if err != nil {
		r.t.Fatalf("dial: %v", err)
	}
	return c
}

type msg struct {
	T     string            `json:"t"`
	Msg   string            `json:"msg"`
	Pane  int               `json:"pane"`
	Full  bool              `json:"full"`
	Lines []json.RawMessage `json:"lines"`
	State *State            `json:"state"`
	Write string            `json:"writer"`
}

// next reads messages until one of type typ.
func next(t *testing.T, c *websocket.Conn, typ string) msg {
	t.Helper()
	var m msg
	readJSON(t, c, typ, &m)
	return m
}

func write(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// closedWith reads until the connection ends and returns its close status.
func closedWith(t *testing.T, c *websocket.Conn) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if ctx.Err() != nil {
				t.Fatal("the connection stayed open")
			}
			return websocket.CloseStatus(err)
		}
	}
}

func TestAnyOtherAddressThanLoopbackNeedsTLS(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		_, err := Start(Config{Listen: addr, Backend: newFake("")})
		if err == nil || !strings.Contains(err.Error(), "--tls-cert FILE --tls-key FILE") || !strings.Contains(err.Error(), "ssh -L") {
			t.Errorf("Start(%s) = %v, want a refusal saying how", addr, err)
		}
	}
	if _, err := Start(Config{Listen: "127.0.0.1:0", CertFile: "x"}); err == nil {
		t.Error("a certificate without its key was taken")
	}
}

func TestTLSOnAnyAddress(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir, "melmux.test")
	srv, err := Start(Config{Listen: "0.0.0.0:0", CertFile: certFile, KeyFile: keyFile, Backend: newFake(""),
		Tokens: webtoken.Open(filepath.Join(dir, "t.json"))})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Addr())
	if !strings.HasPrefix(srv.URL(""), "https://melmux.test:"+port) {
		t.Errorf("URL = %s, want the certificate's name", srv.URL(""))
	}
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "melmux.test"}}}
	get := func(host string) int {
		req, _ := http.NewRequest("GET", "https://127.0.0.1:"+port+"/", nil)
		req.Host = host
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get("melmux.test:" + port); c != 200 {
		t.Errorf("GET by the certificate's name: %d", c)
	}
	if c := get("evil.example:" + port); c != http.StatusMisdirectedRequest {
		t.Errorf("GET by another name: %d, want 421", c)
	}
	code := srv.NewCode()
	req, _ := http.NewRequest("POST", "https://127.0.0.1:"+port+"/login", strings.NewReader(`{"code":"`+code+`"}`))
	req.Host = "melmux.test:" + port
	req.Header.Set("Origin", "https://melmux.test:"+port)
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || len(resp.Cookies()) != 1 || !resp.Cookies()[0].Secure {
		t.Fatalf("login under TLS: %s, cookies %v (want one, Secure)", resp.Status, resp.Cookies())
	}
}

func selfSigned(t *testing.T, dir, name string) (certFile, keyFile string, pool *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return certFile, keyFile, pool
}

// A page of another site resolving its own name to 127.0.0.1 (DNS
// rebinding) reaches the port under that name: refused, whatever the path.
func TestAnotherHostIsRefused(t *testing.T) {
	r := start(t)
	for _, path := range []string{"/", "/app.js", "/login", "/ws"} {
		req, _ := http.NewRequest("GET", r.base+path, nil)
		req.Host = "rebind.example:" + strings.Split(r.srv.Addr(), ":")[1]
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("%s with Host %s: %s, want 421", path, req.Host, resp.Status)
		}
	}
	resp, err := http.Get(r.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("GET / by its own address: %s %v", resp.Status, resp.Header)
	}
}

// Cross-site request forgery: another site's page can make the browser
// post to /login (a form, or fetch without CORS), but not with this
// server's Origin.
func TestLoginCSRF(t *testing.T) {
	r := start(t)
	secret := r.token("a", false)
	body := `{"token":"` + secret + `"}`
	if c := r.post("/login", "", body).StatusCode; c != http.StatusForbidden {
		t.Errorf("login without Origin: %d, want 403", c)
	}
	if c := r.post("/login", "http://evil.example", body).StatusCode; c != http.StatusForbidden {
		t.Errorf("login from another origin: %d, want 403", c)
	}
	req, _ := http.NewRequest("POST", r.base+"/login", strings.NewReader("token="+secret))
	req.Header.Set("Origin", r.base)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a form's login: %d, want 415", resp.StatusCode)
	}
	if c := r.post("/logout", "http://evil.example", "").StatusCode; c != http.StatusForbidden {
		t.Errorf("logout from another origin: %d, want 403", c)
	}
}

func TestCookieAndOneTimeCode(t *testing.T) {
	r := start(t)
	code := r.srv.NewCode()
	if !strings.Contains(r.srv.URL(code), "/#code="+code) {
		t.Errorf("URL %s: the code is not in the fragment", r.srv.URL(code))
	}
	resp := r.post("/login", r.base, `{"code":"`+code+`"}`)
	if resp.StatusCode != 200 {
		t.Fatalf("login with the code: %s", resp.Status)
	}
	set := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q lacks %s", set, want)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Set-Cookie %q: Secure over plain HTTP would never come back", set)
	}
	if c := r.post("/login", r.base, `{"code":"`+code+`"}`).StatusCode; c != http.StatusUnauthorized {
		t.Errorf("the code a second time: %d, want 401", c)
	}
	c := r.mustDial(resp.Cookies()[0])
	if m := next(t, c, "hello"); m.T != "hello" {
		t.Fatal(m)
	}
}

// Cross-site WebSocket hijacking: a WebSocket is not bound by the
// same-origin policy, and the browser sends the cookie with it (Lax
// would; Strict does not from another site, but the Origin is checked too).
func TestWebSocketNeedsTheCookieAndTheOrigin(t *testing.T) {
	r := start(t)
	cookie := r.login(r.token("a", false))
	if _, resp, err := r.dial(nil, r.base); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a WebSocket without the cookie: %v %v, want 401", err, resp)
	}
	if _, resp, err := r.dial(cookie, "http://evil.example"); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a WebSocket from another origin: %v, want 403", err)
	}
	if _, resp, err := r.dial(cookie, ""); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a WebSocket without Origin: %v, want 403", err)
	}
	forged := &http.Cookie{Name: cookie.Name, Value: strings.Repeat("0", len(cookie.Value))}
	if _, resp, err := r.dial(forged, r.base); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a WebSocket with a made-up cookie: %v, want 401", err)
	}
	c := r.mustDial(cookie)
	next(t, c, "hello")
}

func TestRevokedTokenIsRefusedEverywhere(t *testing.T) {
	r := start(t)
	secret := r.token("phone", false)
	cookie := r.login(secret)
	c := r.mustDial(cookie)
	next(t, c, "hello")
	if err := r.tokens.Revoke("phone"); err != nil {
		t.Fatal(err)
	}
	if code := r.post("/login", r.base, `{"token":"`+secret+`"}`).StatusCode; code != http.StatusUnauthorized {
		t.Errorf("the revoked token replayed: %d, want 401", code)
	}
	if _, resp, err := r.dial(cookie, r.base); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a WebSocket with the revoked token's cookie: %v, want 401", err)
	}
	// The page still connected is cut off at its next message.
	write(t, c, map[string]any{"t": "text", "pane": 1, "text": "rm -rf"})
	if st := closedWith(t, c); st != websocket.StatusPolicyViolation {
		t.Errorf("the open page after revoke: closed with %v, want policy violation", st)
	}
	if got := r.be.typedText(); got != "" {
		t.Errorf("typed after revoke: %q", got)
	}
}

func TestBruteForceIsRateLimitedAndLogged(t *testing.T) {
	r := start(t)
	secret := r.token("a", false)
	for i := range failsAllowed {
		if c := r.post("/login", r.base, fmt.Sprintf(`{"token":"mmx_guess%d"}`, i)).StatusCode; c != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d, want 401", i, c)
		}
	}
	if c := r.post("/login", r.base, `{"token":"mmx_guess"}`).StatusCode; c != http.StatusTooManyRequests {
		t.Errorf("a guess past the limit: %d, want 429", c)
	}
	// Even the right token waits: else guessing would go on.
	if c := r.post("/login", r.base, `{"token":"`+secret+`"}`).StatusCode; c != http.StatusTooManyRequests {
		t.Errorf("the right token past the limit: %d, want 429", c)
	}
	log := r.log.String()
	if strings.Count(log, "web: failed login") != failsAllowed || !strings.Contains(log, "too many failed logins") {
		t.Errorf("log:\n%s", log)
	}
}

func TestHugeAndMalformedFramesEndTheConnectionOnly(t *testing.T) {
	r := start(t)
	cookie := r.login(r.token("a", false))
	c := r.mustDial(cookie)
	next(t, c, "hello")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"t":"text","pane":1,"text":"`+strings.Repeat("a", 2*maxMessage)+`"}`))
	if st := closedWith(t, c); st != websocket.StatusMessageTooBig {
		t.Errorf("a huge frame: closed with %v, want message too big", st)
	}
	for _, bad := range []string{"not json", `{"t":`, "\x00\xff"} {
		c = r.mustDial(cookie)
		next(t, c, "hello")
		if err := c.Write(ctx, websocket.MessageText, []byte(bad)); err != nil {
			t.Fatal(err)
		}
		if st := closedWith(t, c); st != websocket.StatusPolicyViolation {
			t.Errorf("a malformed frame %q: closed with %v, want policy violation", bad, st)
		}
	}
	if got := r.be.typedText(); got != "" {
		t.Errorf("typed: %q", got)
	}
	c = r.mustDial(cookie)
	next(t, c, "hello")
}

func TestReadOnlyWatchesAndNeverTypes(t *testing.T) {
	r := start(t)
	c := r.mustDial(r.login(r.token("watcher", true)))
	next(t, c, "hello")
	write(t, c, map[string]any{"t": "watch", "panes": []int{1}})
	if m := next(t, c, "screen"); !strings.Contains(string(m.Lines[0]), "hello") {
		t.Errorf("a read-only page sees %s", m.Lines[0])
	}
	for _, m := range []map[string]any{{"t": "text", "pane": 1, "text": "x"}, {"t": "key", "pane": 1, "key": "<Enter>"},
		{"t": "answer", "pane": 1, "choice": "1"}, {"t": "take"}} {
		write(t, c, m)
		if e := next(t, c, "error"); !strings.Contains(e.Msg, "read-only") {
			t.Errorf("%v: %q", m, e.Msg)
		}
	}
	if got := r.be.typedText(); got != "" {
		t.Errorf("a read-only page typed %q", got)
	}
}

func TestOneWriterAtATimeWithTakeOver(t *testing.T) {
	r := start(t)
	secret := r.token("a", false)
	a, b := r.mustDial(r.login(secret)), r.mustDial(r.login(secret))
	next(t, a, "hello")
	next(t, b, "hello")
	write(t, a, map[string]any{"t": "text", "pane": 1, "text": "A"})
	writerIs(t, a, "you")
	writerIs(t, b, "other")
	write(t, b, map[string]any{"t": "text", "pane": 1, "text": "B"})
	if e := next(t, b, "error"); !strings.Contains(e.Msg, "take over") {
		t.Errorf("b typing while a types: %q", e.Msg)
	}
	write(t, b, map[string]any{"t": "take"})
	writerIs(t, b, "you")
	writerIs(t, a, "other")
	write(t, b, map[string]any{"t": "text", "pane": 1, "text": "B"})
	write(t, a, map[string]any{"t": "text", "pane": 1, "text": "A2"})
	if e := next(t, a, "error"); !strings.Contains(e.Msg, "another page") {
		t.Errorf("a typing after b took over: %q", e.Msg)
	}
	if got := r.be.typedText(); got != "A|B" {
		t.Errorf("typed %q, want A|B", got)
	}
}

// writerIs reads state messages until one says the writer is w.
func writerIs(t *testing.T, c *websocket.Conn, w string) {
	t.Helper()
	for next(t, c, "state").Write != w {
	}
}

// A change sends the rows that changed, and a change that changes nothing
// sends nothing.
func TestOnlyChangedRowsAreSent(t *testing.T) {
	r := start(t)
	c := r.mustDial(r.login(r.token("a", false)))
	next(t, c, "hello")
	write(t, c, map[string]any{"t": "watch", "panes": []int{1}})
	if m := next(t, c, "screen"); !m.Full || len(m.Lines) != 3 {
		t.Fatalf("first screen: full %v, %d rows", m.Full, len(m.Lines))
	}
	r.be.set(-1, "")
	r.be.set(2, "world")
	m := next(t, c, "screen")
	if m.Full || len(m.Lines) != 1 || !strings.HasPrefix(string(m.Lines[0]), `[2,[["world"]]]`) {
		t.Errorf("after row 2 changed: full %v, rows %s", m.Full, m.Lines)
	}
}

// A page that takes no frames is dropped, and the session's changes go on
// being made at their pace meanwhile.
func TestASlowPageIsDropped(t *testing.T) {
	old := writeTimeout
	writeTimeout = 300 * time.Millisecond
	defer func() { writeTimeout = old }()
	r := start(t)
	cookie := r.login(r.token("a", false))
	// A raw connection that upgrades, asks for the pane and then reads
	// nothing: the kernel's buffers fill, then the server's write times out.
	conn, err := net.Dial("tcp", r.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4096)
	askUpgrade(conn, r, cookie)
	buf := make([]byte, 4096)
	n, _ := conn.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 101") {
		t.Fatalf("upgrade: %q", buf[:n])
	}
	// A masked text frame: watch pane 1.
	payload := []byte(`{"t":"watch","panes":[1]}`)
	frame := []byte{0x81, 0x80 | byte(len(payload)), 0, 0, 0, 0}
	conn.Write(append(frame, payload...))
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; r.srv.Browsers() > 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("a page that reads nothing was never dropped")
		}
		// Rows of noise do not compress: each frame is a few KB.
		r.be.set(i%3, randomHex(16<<10))
		time.Sleep(time.Millisecond)
	}
	if !strings.Contains(r.log.String(), "dropped a page that takes no frames") {
		t.Errorf("log:\n%s", r.log.String())
	}
}

var _ = errors.New

// A page reads a pane's history a page at a time, a read-only login too;
// lines scrolling off a screen that looks the same after are news to a
// page scrolled back.
func TestHistoryPages(t *testing.T) {
	r := start(t)
	r.be.mu.Lock()
	r.be.hist = 5
	r.be.mu.Unlock()
	c := r.mustDial(r.login(r.token("watcher", true)))
	next(t, c, "hello")
	write(t, c, map[string]any{"t": "watch", "panes": []int{1}})
	next(t, c, "screen")
	write(t, c, map[string]any{"t": "history", "pane": 1, "n": 2})
	var h historyMsg
	readJSON(t, c, "history", &h)
	if h.Pane != 1 || h.First != 4 || h.Oldest != 1 || h.Top != 6 || len(h.Lines) != 2 || string(h.Lines[1]) != `[["h4"]]` {
		t.Errorf("the newest 2 rows: %+v %s", h, h.Lines)
	}
	write(t, c, map[string]any{"t": "history", "pane": 1, "before": 4, "n": 10})
	readJSON(t, c, "history", &h)
	if h.First != 1 || len(h.Lines) != 3 || string(h.Lines[0]) != `[["h0"]]` {
		t.Errorf("the rows above place 4: %+v %s", h, h.Lines)
	}
	write(t, c, map[string]any{"t": "history", "pane": 9, "n": 10})
	readJSON(t, c, "history", &h)
	if !h.Gone || h.Pane != 9 {
		t.Errorf("a pane that is not: %+v", h)
	}
	r.be.mu.Lock()
	r.be.hist = 6
	r.be.mu.Unlock()
	r.be.set(-1, "")
	var s screenMsg
	readJSON(t, c, "screen", &s)
	if s.Hist != 7 || len(s.Lines) != 0 {
		t.Errorf("after a line scrolled off an unchanged screen: hist %d, %d rows", s.Hist, len(s.Lines))
	}
}

// readJSON reads messages until one of type typ, into v.
func readJSON(t *testing.T, c *websocket.Conn, typ string, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %q: %v", typ, err)
		}
		var m msg
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.T == typ {
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

// askUpgrade writes a WebSocket upgrade of /ws by hand, from the page's
// origin with cookie, for tests that read the server's frames raw.
func askUpgrade(conn net.Conn, r *rig, cookie *http.Cookie) {
	fmt.Fprintf(conn, "GET /ws HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nCookie: %s=%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", r.srv.Addr(), r.base, cookie.Name, cookie.Value)
}
