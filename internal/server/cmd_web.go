package server

import (
	"context"
	"encoding/json"
	"net"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/web"
	"github.com/melmux/melmux/internal/webtoken"
)

// web serves the session over HTTP until the session ends or web is asked
// to stop; asked again while it serves, it answers with a new one-time
// login code. Status and Stop start nothing.
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
		srv := h.srv
		switch {
		case p.Status:
			if srv == nil {
				return proto.WebResult{Session: s.name}, nil
			}
			return proto.WebResult{Session: s.name, Running: true, Addr: srv.Addr(), TLS: srv.TLS(), Browsers: srv.Browsers()}, nil
		case p.Stop:
			if srv == nil {
				return proto.WebResult{Session: s.name}, nil
			}
			h.srv = nil
			n := srv.Browsers()
			srv.Close()
			s.log.Info("web: stopped", "addr", srv.Addr())
			return proto.WebResult{Session: s.name, Stopped: true, Browsers: n}, nil
		}
		if srv != nil {
			if p.Listen != "" && !sameListen(p.Listen, srv.Addr()) || p.TLSCert != "" {
				return nil, errorf(proto.CodeFailed, "web: the session is served on %s already: melmux web --stop first to serve it elsewhere", srv.Addr())
			}
		} else {
			path, err := webtoken.Path()
			if err != nil {
				return nil, errorf(proto.CodeFailed, "%v", err)
			}
			srv, err = web.Start(web.Config{Listen: p.Listen, CertFile: p.TLSCert, KeyFile: p.TLSKey,
				Tokens: webtoken.Open(path), Log: s.log, Backend: webBackend{s}})
			if err != nil {
				return nil, errorf(proto.CodeFailed, "%v", err)
			}
			h.srv = srv
			s.log.Info("web: serving", "addr", srv.Addr(), "tls", srv.TLS())
			go s.stopWebAtEnd(srv)
		}
		code := srv.NewCode()
		return proto.WebResult{Session: s.name, Running: true, Addr: srv.Addr(), TLS: srv.TLS(), URL: srv.URL(code), Code: code, Browsers: srv.Browsers()}, nil
	}})
}

// stopWebAtEnd ends srv with the session: nothing is served of a session
// that is gone.
func (s *Server) stopWebAtEnd(srv *web.Server) {
	defer s.recovered("web", nil)
	<-s.done
	h := &s.web
	h.run.Lock()
	if h.srv == srv {
		h.srv = nil
	}
	h.run.Unlock()
	srv.Close()
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
