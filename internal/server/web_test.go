package server

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
	_ "github.com/melmux/melmux/internal/web" // registers __web: this test binary plays melmux-web
)

// playWeb runs this test binary as melmux-web when a test's server started
// it as one (withWeb); it returns otherwise.
func playWeb() {
	if len(os.Args) == 2 && os.Args[1] == cli.WebVerb {
		os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
	}
}

// withWeb makes the server start this test binary as its web server.
func withWeb(cfg *Config) {
	cfg.tune.web = func() []string { return []string{os.Args[0], cli.WebVerb} }
}

// webProcOf is the web server process s runs, nil when none.
func webProcOf(s *Server) *webProc {
	s.web.run.Lock()
	defer s.web.run.Unlock()
	return s.web.proc
}

// loginStatus posts a login with code to the URL's server and returns the
// HTTP status.
func loginStatus(t *testing.T, url string) int {
	t.Helper()
	resp, _ := webLogin(t, url)
	return resp.StatusCode
}

// webLogin posts a login with the code of a `web` URL to its server; it
// returns the answer (its body closed) and the server's base URL.
func webLogin(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	base, code, ok := strings.Cut(url, "/#code=")
	if !ok {
		t.Fatalf("web URL %q has no code", url)
	}
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(`{"code":"`+code+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", base)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp, base
}

// TestTheWebServerIsAProcessOfItsOwn: `web` starts the web server in a
// process beside the session's (which links no HTTP), `web --status`
// reports it, `web --stop` ends the process, one that dies is forgotten
// (and `web` starts another), and the session's end ends it.
func TestTheWebServerIsAProcessOfItsOwn(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s, c := startServer(t, withWeb)
	call(t, c, "new", proto.NewParams{Command: []string{"/bin/sh", "-c", "sleep 600"}}, nil)
	var res proto.WebResult
	call(t, c, "web", proto.WebParams{}, &res)
	w := webProcOf(s)
	if w == nil || w.cmd.Process.Pid == os.Getpid() {
		t.Fatalf("web started no process of its own: %+v", w)
	}
	if st := loginStatus(t, res.URL); st != http.StatusOK {
		t.Fatalf("login with the printed code: %d", st)
	}
	var again proto.WebResult
	call(t, c, "web", proto.WebParams{}, &again)
	if again.Code == "" || again.Code == res.Code || again.Addr != res.Addr || webProcOf(s) != w {
		t.Errorf("web again: %+v, want a new code from the same server (%s)", again, res.Addr)
	}
	var st proto.WebResult
	call(t, c, "web", proto.WebParams{Status: true}, &st)
	if !st.Running || st.Addr != res.Addr {
		t.Errorf("status: %+v", st)
	}
	call(t, c, "web", proto.WebParams{Stop: true}, &st)
	if !st.Stopped {
		t.Errorf("stop: %+v", st)
	}
	select {
	case <-w.exited:
	default:
		t.Error("web --stop answered before the web server's process ended")
	}
	call(t, c, "web", proto.WebParams{Status: true}, &st)
	if st.Running {
		t.Errorf("status after stop: %+v", st)
	}

	// A web server that dies is forgotten, and web starts another.
	call(t, c, "web", proto.WebParams{}, &res)
	w = webProcOf(s)
	w.cmd.Process.Kill()
	if !waitFor(func() bool { return webProcOf(s) == nil }) {
		t.Fatal("the killed web server is still the session's")
	}
	call(t, c, "web", proto.WebParams{Status: true}, &st)
	if st.Running {
		t.Errorf("status after the web server died: %+v", st)
	}
	call(t, c, "web", proto.WebParams{}, &res)
	if st := loginStatus(t, res.URL); st != http.StatusOK {
		t.Fatalf("login to the second web server: %d", st)
	}

	// The session's end ends it.
	w = webProcOf(s)
	s.Shutdown("test over")
	select {
	case <-w.exited:
	case <-time.After(time.Minute):
		t.Fatal("the web server outlived its session")
	}
}
