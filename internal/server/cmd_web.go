package server

import (
	"context"
	"encoding/json"
	"net"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/webtoken"
	"github.com/melmux/melmux/internal/webwire"
)

// webAskWait bounds a question to the web server's process (a new code,
// its status, its stop): it answers at once unless it is stuck.
const webAskWait = 10 * time.Second

// web serves the session over HTTP, from a process of its own (webHub),
// until the session ends or web is asked to stop; asked again while it
// serves, it answers with a new one-time login code. Status and Stop start
// nothing.
func init() {
	register(&Command{Name: "web", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.WebParams
		if err := decodeParams("web", raw, &p); err != nil {
			return nil, err
		}
		starting := !p.Stop && !p.Status
		if p.Stop && p.Status || !starting && (p.Listen != "" || p.TLSCert != "" || p.TLSKey != "") {
			return nil, errorf(proto.CodeBadParams, "web: stop and status take nothing else (listen, tls_cert and tls_key are for starting)")
		}
		h := &s.web
		h.run.Lock()
		defer h.run.Unlock()
		w := h.proc
		ask := func(method string) (webwire.StatusResult, error) {
			var st webwire.StatusResult
			actx, cancel := context.WithTimeout(ctx, webAskWait)
			defer cancel()
			err := w.peer.Call(actx, method, struct{}{}, &st)
			return st, err
		}
		switch {
		case p.Status:
			if w == nil {
				return proto.WebResult{Session: s.name}, nil
			}
			st, err := ask(webwire.Status)
			if err != nil {
				return nil, errorf(proto.CodeFailed, "web: the web server did not answer: %v", err)
			}
			return proto.WebResult{Session: s.name, Running: true, Addr: st.Addr, TLS: st.TLS, Browsers: st.Browsers}, nil
		case p.Stop:
			if w == nil {
				return proto.WebResult{Session: s.name}, nil
			}
			h.proc = nil
			st, err := ask(webwire.Stop)
			w.end()
			if err != nil {
				s.log.Warn("web: the web server did not answer its stop; ended it", "err", err)
			}
			s.log.Info("web: stopped", "addr", w.addr)
			return proto.WebResult{Session: s.name, Stopped: true, Browsers: st.Browsers}, nil
		}
		if w != nil {
			if p.Listen != "" && !sameListen(p.Listen, w.addr) || p.TLSCert != "" {
				return nil, errorf(proto.CodeFailed, "web: the session is served on %s already: melmux web --stop first to serve it elsewhere", w.addr)
			}
			st, err := ask(webwire.Code)
			if err != nil {
				return nil, errorf(proto.CodeFailed, "web: the web server did not answer: %v", err)
			}
			return proto.WebResult{Session: s.name, Running: true, Addr: st.Addr, TLS: st.TLS, URL: st.URL, Code: st.Code, Browsers: st.Browsers}, nil
		}
		path, err := webtoken.Path()
		if err != nil {
			return nil, errorf(proto.CodeFailed, "%v", err)
		}
		w, st, err := s.startWeb(ctx, p, path)
		if err != nil {
			return nil, errorf(proto.CodeFailed, "%v", err)
		}
		h.proc = w
		s.log.Info("web: serving", "addr", st.Addr, "tls", st.TLS, "pid", w.cmd.Process.Pid)
		return proto.WebResult{Session: s.name, Running: true, Addr: st.Addr, TLS: st.TLS, URL: st.URL, Code: st.Code, Browsers: st.Browsers}, nil
	}})
}

// sameListen says asked (ADDR:PORT, port 0 for any) names the address
// served.
func sameListen(asked, served string) bool {
	ah, ap, err := net.SplitHostPort(asked)
	if err != nil {
		return false
	}
	sh, sp, _ := net.SplitHostPort(served)
	return (ap == "0" || ap == sp) && (net.ParseIP(ah).Equal(net.ParseIP(sh)) || ah == "localhost" && net.ParseIP(sh).IsLoopback())
}
