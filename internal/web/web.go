// Package web serves a session to browsers (`melmux web`): a page, embedded,
// that shows the session's tabs and panes as text and the agents' questions
// with buttons that answer them, live over a WebSocket. It is off until the
// session's server is asked to start it, and safe by default: loopback only
// unless TLS is configured, every request's Host and Origin checked, a login
// (a token of the user's or a one-time code) exchanged for an HttpOnly,
// SameSite=Strict cookie, failed logins rate-limited and logged, read-only
// tokens able to watch and nothing else. docs/web.md has the model.
//
// The session itself is behind Backend, which the server implements; this
// package never reaches into it otherwise.
package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/webtoken"
	"github.com/melmux/melmux/internal/webwire"
)

// Backend is the session as the page sees it. In melmux-web it is the
// session's server at the other end of a socket pair (process.go).
type Backend interface {
	// Changed returns a channel closed at the next change of any pane's
	// screen, the layout or an agent after the call.
	Changed() <-chan struct{}
	State() State
	// Screen is pane id's screen as the page's rows; nil when there is no
	// such pane.
	Screen(id int) *webwire.ScreenResult
	// History is a page of pane id's history (webwire.HistoryParams,
	// Pane left out); nil when there is no such pane.
	History(ctx context.Context, id int, p webwire.HistoryParams) *webwire.HistoryResult
	// Type writes into pane id: text as it is, or (keys) in send_keys'
	// key notation ("<Up>", "<C-c>"), encoded for the pane's modes.
	Type(ctx context.Context, id int, text string, keys bool) error
	// Answer answers pane id's question through the answer command.
	Answer(ctx context.Context, id int, choice, question string) (proto.AnswerResult, error)
}

// State is the session's shape: its tabs with their panes placed in the
// pane area, and its agents.
type State = webwire.StateResult

// Tab is one tab of the layout.
type Tab = webwire.Tab

// PaneInfo is a pane and where its content lies in the pane area.
type PaneInfo = webwire.PaneInfo

// Config is what Start needs.
type Config struct {
	Listen   string // ADDR:PORT; 127.0.0.1:0 when empty
	CertFile string
	KeyFile  string
	Tokens   *webtoken.Store
	Log      *slog.Logger
	Backend  Backend
}

// Limits. A login is a few hundred bytes; a browser's message, keys or an
// answer, less than a paste of 32 KB.
const (
	sessionLife   = 12 * time.Hour
	codeLife      = 10 * time.Minute
	codeFresh     = time.Minute // a code this young logs in past the failed logins' limit
	maxLoginBody  = 4 << 10
	maxMessage    = 64 << 10
	failWindow    = time.Minute
	failsAllowed  = 5 // in failWindow; then every login is refused until the oldest ages out
	maxCodes      = 8 // one-time codes outstanding; the oldest is dropped
	maxSessions   = 64
	frameInterval = 50 * time.Millisecond
	outQueue      = 32
	maxWatched    = 16
)

// writeTimeout is how long a page may take to take a frame before it is
// dropped; pingEvery is how often an idle page is sent a keep-alive (its
// only traffic). Variables: tests shorten them.
var (
	writeTimeout = 10 * time.Second
	pingEvery    = 25 * time.Second
)

//go:embed static
var static embed.FS

// Server serves one session.
type Server struct {
	cfg    Config
	ln     net.Listener
	srv    *http.Server
	tls    bool
	addr   string
	hosts  map[string]bool // names a request's Host may have
	cookie string
	log    *slog.Logger

	mu       sync.Mutex           // guards what follows, and each session's fails
	codes    map[string]time.Time // sha256 of a one-time code: when it expires
	sessions map[string]*session  // sha256 of a cookie
	fails    []time.Time          // failed logins within failWindow
	conns    map[*conn]struct{}
	writer   *conn // the page that types; one at a time
	closed   bool
}

type session struct {
	name     string // the token's, or "code"
	hash     string // the token's hash; "" for a code's session
	readOnly bool
	expires  time.Time
	fails    []time.Time // its logins that failed within failWindow (guarded by Server.mu)
}

// Loopback says whether host (of ADDR:PORT) is this machine only.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Start listens and serves until Close.
func Start(cfg Config) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("web: --listen %q: want ADDR:PORT, such as 127.0.0.1:8080 (port 0 picks one)", cfg.Listen)
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, errors.New("web: --tls-cert and --tls-key go together: give both PEM files or neither")
	}
	s := &Server{cfg: cfg, log: cfg.Log, hosts: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true},
		codes: map[string]time.Time{}, sessions: map[string]*session{}, conns: map[*conn]struct{}{}}
	var tlsConf *tls.Config
	if cfg.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("web: TLS: %v", err)
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			return nil, fmt.Errorf("web: TLS certificate %s: %v", cfg.CertFile, err)
		}
		// A browser reaches a TLS server by a name its certificate
		// holds: those are the Host names taken (beside loopback's).
		for _, n := range leaf.DNSNames {
			s.hosts[strings.ToLower(n)] = true
		}
		for _, ip := range leaf.IPAddresses {
			s.hosts[ip.String()] = true
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		s.tls = true
	} else if !Loopback(host) {
		return nil, fmt.Errorf("web: %s is not a loopback address, and without TLS anyone on the way could read the session and its login: "+
			"give --tls-cert FILE --tls-key FILE, or keep the default 127.0.0.1 and reach it through `ssh -L 8080:127.0.0.1:PORT HOST` or a tailnet (docs/web.md)", cfg.Listen)
	}
	if host != "" && net.ParseIP(host) != nil && !net.ParseIP(host).IsUnspecified() {
		s.hosts[net.ParseIP(host).String()] = true
	} else if host != "" && net.ParseIP(host) == nil {
		s.hosts[strings.ToLower(host)] = true
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("web: %v", err)
	}
	if tlsConf != nil {
		ln = tls.NewListener(ln, tlsConf)
	}
	s.ln = ln
	s.addr = ln.Addr().String()
	_, p, _ := net.SplitHostPort(s.addr)
	// Cookies are per host, not per port: each session's server names
	// its own, so two sessions served from one machine keep both logins.
	s.cookie = "melmux-" + p
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("GET /ws", s.socket)
	mux.HandleFunc("GET /", serveStatic)
	s.srv = &http.Server{Handler: s.guard(mux), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address served, port resolved.
func (s *Server) Addr() string { return s.addr }

// TLS says whether it serves HTTPS.
func (s *Server) TLS() bool { return s.tls }

// Browsers is how many pages are connected.
func (s *Server) Browsers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// NewCode makes a one-time login code, valid for codeLife.
func (s *Server) NewCode() string {
	code := randomHex(16)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for h, exp := range s.codes {
		if now.After(exp) {
			delete(s.codes, h)
		}
	}
	for len(s.codes) >= maxCodes {
		var oldest string
		for h, exp := range s.codes {
			if oldest == "" || exp.Before(s.codes[oldest]) {
				oldest = h
			}
		}
		delete(s.codes, oldest)
	}
	s.codes[sum(code)] = now.Add(codeLife)
	return code
}

// URL is the page's address with code in its fragment, which the browser
// keeps to itself: the page posts it to /login and forgets it.
func (s *Server) URL(code string) string {
	scheme := "http"
	if s.tls {
		scheme = "https"
	}
	host, port, _ := net.SplitHostPort(s.addr)
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
		for h := range s.hosts {
			if h != "localhost" && h != "127.0.0.1" && h != "::1" {
				host = h
				break
			}
		}
	}
	u := scheme + "://" + net.JoinHostPort(host, port) + "/"
	if code != "" {
		u += "#code=" + code
	}
	return u
}

// Close stops serving and closes every page's connection.
func (s *Server) Close() error {
	var conns []*conn
	locked(&s.mu, func() {
		s.closed = true
		conns = make([]*conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
	})
	for _, c := range conns {
		c.drop("the session stopped serving the web")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// guard checks every request's Host (a DNS-rebinding page reaches a
// loopback port under its own name) and sets the headers that keep the
// page out of frames and its code its own.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if s.tls {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if !s.hostOK(r.Host) {
			s.log.Warn("web: refused a request for another host", "host", r.Host, "from", r.RemoteAddr, "path", r.URL.Path)
			http.Error(w, "melmux web: wrong Host", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostOK takes the port as it comes: through a tunnel (`ssh -L
// 8080:127.0.0.1:PORT`) the browser names the tunnel's port, not ours.
func (s *Server) hostOK(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if ip := net.ParseIP(host); ip != nil {
		// Any loopback address: an ssh tunnel's or a proxy's local end
		// may listen on 127.0.0.2 as well as 127.0.0.1, and no DNS name
		// an attacker controls is an IP literal.
		if ip.IsLoopback() {
			return true
		}
		host = ip.String()
	}
	return host != "" && s.hosts[host]
}

// originOK says the request comes from the page itself: its Origin is
// this server as the browser reached it. A request that changes anything
// (a login, the WebSocket) must carry one.
func (s *Server) originOK(r *http.Request) bool {
	scheme := "http://"
	if s.tls {
		scheme = "https://"
	}
	o := r.Header.Get("Origin")
	return o != "" && strings.EqualFold(o, scheme+r.Host)
}

type loginRequest struct {
	Token string `json:"token,omitempty"`
	Code  string `json:"code,omitempty"`
}

type loginResult struct {
	Name     string `json:"name"`
	ReadOnly bool   `json:"read_only"`
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.originOK(r) {
		s.log.Warn("web: refused a login from another origin", "origin", r.Header.Get("Origin"), "from", r.RemoteAddr)
		http.Error(w, "melmux web: wrong Origin", http.StatusForbidden)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		http.Error(w, "melmux web: a login is JSON", http.StatusUnsupportedMediaType)
		return
	}
	var req loginRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxLoginBody))
	decErr := dec.Decode(&req)
	if wait := s.limited(); wait > 0 && !s.passesLimit(r, req) {
		s.log.Warn("web: login refused: too many failed logins", "from", r.RemoteAddr, "retry_after", wait.Round(time.Second))
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		http.Error(w, "melmux web: too many failed logins; try again later, or log in with the code of a new `melmux web`", http.StatusTooManyRequests)
		return
	}
	if decErr != nil {
		s.failed(r, "a malformed login")
		http.Error(w, "melmux web: bad login", http.StatusBadRequest)
		return
	}
	var sess *session
	switch {
	case req.Code != "":
		if s.useCode(req.Code) {
			sess = &session{name: "code"}
		}
	case req.Token != "":
		if s.cfg.Tokens != nil {
			if tok, ok := s.cfg.Tokens.Check(req.Token); ok {
				sess = &session{name: tok.Name, hash: tok.Hash, readOnly: tok.ReadOnly}
			}
		}
	}
	if sess == nil {
		s.failed(r, "a wrong token or code")
		http.Error(w, "melmux web: wrong or used token or code", http.StatusUnauthorized)
		return
	}
	sess.expires = time.Now().Add(sessionLife)
	secret := randomHex(32)
	locked(&s.mu, func() {
		s.pruneSessionsLocked()
		s.sessions[sum(secret)] = sess
	})
	s.log.Info("web: logged in", "as", sess.name, "read_only", sess.readOnly, "from", r.RemoteAddr)
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: secret, Path: "/", HttpOnly: true, Secure: s.tls,
		SameSite: http.SameSiteStrictMode, MaxAge: int(sessionLife.Seconds())})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(loginResult{Name: sess.name, ReadOnly: sess.readOnly})
}

// useCode takes a one-time code, which works once whatever it says, and
// says whether it was outstanding and has not expired.
func (s *Server) useCode(code string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := sum(code)
	exp, ok := s.codes[h]
	if !ok {
		return false
	}
	delete(s.codes, h) // once
	return time.Now().Before(exp)
}

func (s *Server) pruneSessionsLocked() {
	now := time.Now()
	for k, v := range s.sessions {
		if now.After(v.expires) {
			delete(s.sessions, k)
		}
	}
	for len(s.sessions) >= maxSessions {
		var oldest string
		for k, v := range s.sessions {
			if oldest == "" || v.expires.Before(s.sessions[oldest].expires) {
				oldest = k
			}
		}
		delete(s.sessions, oldest)
	}
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if !s.originOK(r) {
		http.Error(w, "melmux web: wrong Origin", http.StatusForbidden)
		return
	}
	if c, err := r.Cookie(s.cookie); err == nil {
		locked(&s.mu, func() { delete(s.sessions, sum(c.Value)) })
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: "", Path: "/", HttpOnly: true, Secure: s.tls, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
}

// failed counts and logs a failed login: against the server, and against
// the login whose cookie the request carries, if any.
func (s *Server) failed(r *http.Request, what string) {
	_, key := s.sessionOf(r)
	now := time.Now()
	var n int
	locked(&s.mu, func() {
		s.fails = append(s.fails, now)
		n = len(s.fails)
		if sess := s.sessions[key]; key != "" && sess != nil {
			sess.fails = append(recent(sess.fails, now), now)
		}
	})
	s.log.Warn("web: failed login", "what", what, "from", r.RemoteAddr, "failures_in_the_last_minute", n)
}

// recent is fails without those older than failWindow.
func recent(fails []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(fails) && now.Sub(fails[i]) > failWindow {
		i++
	}
	return fails[i:]
}

// limited returns how long logins stay refused: once failsAllowed failed
// within failWindow, until the oldest of them is older. The limit is the
// server's, not a client's: through the loopback address and an ssh tunnel,
// which is how it is meant to be reached, the person and anyone guessing
// on the machine come from the same address, and on a network an attacker
// has many. passesLimit lets the person through it.
func (s *Server) limited() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.fails = recent(s.fails, now)
	if len(s.fails) < failsAllowed {
		return 0
	}
	return failWindow - now.Sub(s.fails[len(s.fails)-failsAllowed])
}

// passesLimit says a login goes on while the server refuses logins: it
// brings a one-time code printed within codeFresh (the person just ran
// `melmux web`, the way back in when someone's guessing locked the page
// out; 128 random bits are not guessed through this door), or it carries
// the cookie of a login that goes on and has not failed failsAllowed
// times itself (someone already in, logging in again with another token).
// A code that is not an outstanding fresh one is refused as any login is,
// without being looked at further.
func (s *Server) passesLimit(r *http.Request, req loginRequest) bool {
	now := time.Now()
	if req.Code != "" {
		var exp time.Time
		var ok bool
		locked(&s.mu, func() { exp, ok = s.codes[sum(req.Code)] })
		if ok && now.Before(exp) && now.Sub(exp.Add(-codeLife)) < codeFresh {
			return true
		}
	}
	_, key := s.sessionOf(r)
	if key == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[key]
	if sess == nil {
		return false
	}
	sess.fails = recent(sess.fails, now)
	return len(sess.fails) < failsAllowed
}

// sessionOf returns the request's login, nil when it has none or it ended
// (expired, logged out, its token revoked).
func (s *Server) sessionOf(r *http.Request) (*session, string) {
	c, err := r.Cookie(s.cookie)
	if err != nil {
		return nil, ""
	}
	key := sum(c.Value)
	if !s.valid(key) {
		return nil, ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[key], key
}

// valid says the session under key goes on.
func (s *Server) valid(key string) bool {
	sess := s.unexpired(key)
	if sess == nil {
		return false
	}
	if sess.hash != "" && (s.cfg.Tokens == nil || !s.cfg.Tokens.Valid(sess.name, sess.hash)) {
		locked(&s.mu, func() { delete(s.sessions, key) })
		return false
	}
	return true
}

// unexpired gives the session under key, forgetting it once it has
// expired; nil when there is none (any more).
func (s *Server) unexpired(key string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[key]
	if ok && time.Now().After(sess.expires) {
		delete(s.sessions, key)
		return nil
	}
	return sess
}
