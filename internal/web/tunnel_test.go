package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// forward is what `ssh -L ADDR:PORT:127.0.0.1:SERVERPORT` does on its
// local end: bytes copied both ways, the browser's Host and Origin naming
// the tunnel's address, not the server's.
func forward(t *testing.T, listen, to string) string {
	t.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("the tunnel's local end on %s: %v", listen, err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				d, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer d.Close()
				go io.Copy(d, c)
				io.Copy(c, d)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).String()
}

// TestThroughATunnelOnAnotherPort logs in with the printed code and opens
// the WebSocket through a tunnel whose local port is not the server's, by
// the names a browser uses for it: localhost:PORT and another loopback
// address.
func TestThroughATunnelOnAnotherPort(t *testing.T) {
	r := start(t)
	_, port, _ := net.SplitHostPort(r.srv.Addr())
	a := forward(t, "127.0.0.1:0", r.srv.Addr())
	b := forward(t, "127.0.0.2:0", r.srv.Addr())
	_, aPort, _ := net.SplitHostPort(a)
	for _, base := range []string{"http://localhost:" + aPort, "http://" + b} {
		if strings.HasSuffix(base, ":"+port) {
			t.Fatalf("the tunnel got the server's own port %s", port)
		}
		resp, err := http.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s/: %s, want 200", base, resp.Status)
			continue
		}
		// The printed link's fragment, opened on the tunnel's port.
		code := r.srv.NewCode()
		req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(`{"code":"`+code+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || len(resp.Cookies()) == 0 {
			t.Errorf("login through %s: %s, want 200 and a cookie", base, resp.Status)
			continue
		}
		ck := resp.Cookies()[0]
		h := http.Header{"Origin": {base}, "Cookie": {ck.Name + "=" + ck.Value}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{HTTPHeader: h})
		cancel()
		if err != nil {
			t.Errorf("the WebSocket through %s: %v %v", base, err, resp)
			continue
		}
		next(t, c, "hello")
		c.CloseNow()
	}
	// A name that is not loopback's is still refused through the tunnel.
	req, _ := http.NewRequest("GET", "http://"+a+"/", nil)
	req.Host = "rebind.example:" + aPort
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("Host %s through the tunnel: %s, want 421", req.Host, resp.Status)
	}
}
