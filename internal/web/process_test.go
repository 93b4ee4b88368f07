package web

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/webtoken"
	"github.com/melmux/melmux/internal/webwire"
)

// wireSession is the session's end of the connection, answering from a
// fake as internal/server answers from the session.
type wireSession struct {
	be   *fake
	peer *webwire.Peer
	mu   sync.Mutex // guards logs
	logs []webwire.LogParams
}

func (w *wireSession) handle(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case webwire.State:
		return w.be.State(), nil
	case webwire.Screen:
		var p webwire.ScreenParams
		json.Unmarshal(raw, &p)
		return w.be.Screen(p.Pane), nil
	case webwire.Frame:
		var p webwire.FrameParams
		json.Unmarshal(raw, &p)
		f := webwire.FrameResult{State: w.be.State()}
		for _, id := range p.Panes {
			f.Screens = append(f.Screens, w.be.Screen(id))
		}
		return f, nil
	case webwire.Arm:
		var p webwire.ArmParams
		json.Unmarshal(raw, &p)
		ch := w.be.Changed()
		go func() {
			select {
			case <-ch:
				w.peer.Notify(webwire.Changed, p)
			case <-w.peer.Done():
			}
		}()
		return struct{}{}, nil
	case webwire.Type:
		var p webwire.TypeParams
		json.Unmarshal(raw, &p)
		return struct{}{}, w.be.Type(ctx, p.Pane, p.Text, p.Keys)
	case webwire.Log:
		var p webwire.LogParams
		json.Unmarshal(raw, &p)
		w.mu.Lock()
		w.logs = append(w.logs, p)
		w.mu.Unlock()
		return nil, nil
	}
	return nil, errors.New("no " + method)
}

// serveOverWire runs Serve on one end of a pipe and the fake session on
// the other, and starts serving.
func serveOverWire(t *testing.T, be *fake, tokens string) (*wireSession, webwire.StatusResult, chan error) {
	t.Helper()
	a, b := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(b) }()
	w := &wireSession{be: be}
	w.peer = webwire.NewPeer(a, w.handle)
	w.peer.Inline(webwire.Arm)
	go w.peer.Run()
	t.Cleanup(func() { w.peer.Close() })
	var st webwire.StatusResult
	if err := w.peer.Call(context.Background(), webwire.Start, webwire.StartParams{Session: "t", Tokens: tokens}, &st); err != nil {
		t.Fatal(err)
	}
	return w, st, served
}

// The web server in its own process sees the session only through the
// connection: its pages get the rows, every change (the arm comes before
// the read, so none is lost), and their typing; its log goes to the
// session's; the connection's end ends it.
func TestServeOverTheWire(t *testing.T) {
	be := newFake("hello", "", "")
	tokens := webtoken.Open(filepath.Join(t.TempDir(), "tokens.json"))
	secret, _, err := tokens.Create("a", false)
	if err != nil {
		t.Fatal(err)
	}
	w, st, served := serveOverWire(t, be, tokens.Path())
	r := &rig{t: t, be: be, tokens: tokens, base: "http://" + st.Addr}
	if !strings.HasPrefix(st.URL, r.base+"/#code=") || st.Code == "" {
		t.Fatalf("start: %+v", st)
	}
	c := r.mustDial(r.login(secret))
	next(t, c, "hello")
	write(t, c, map[string]any{"t": "watch", "panes": []int{1}})
	if m := next(t, c, "screen"); !m.Full || !strings.Contains(string(m.Lines[0]), "hello") {
		t.Fatalf("first screen: %v %s", m.Full, m.Lines)
	}
	for _, text := range []string{"one", "two", "three"} {
		be.set(1, text)
		for m := next(t, c, "screen"); !strings.Contains(string(m.Lines[len(m.Lines)-1]), text); m = next(t, c, "screen") {
		}
	}
	write(t, c, map[string]any{"t": "text", "pane": 1, "text": "typed"})
	eventually(t, "the page's typing in the pane", func() bool { return be.typedText() == "typed" })
	eventually(t, "the login in the session's log", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, l := range w.logs {
			if l.Msg == "web: logged in" && len(l.Attrs) == 6 && l.Attrs[0] == "as" && l.Attrs[1] == "a" {
				return true
			}
		}
		return false
	})
	w.peer.Close()
	select {
	case <-served:
	case <-time.After(time.Minute):
		t.Fatal("Serve went on after the session's connection ended")
	}
	if st := closedWith(t, c); st == 0 {
		t.Error("the page stayed connected")
	}
	if _, err := http.Get(r.base + "/"); err == nil {
		t.Error("the page is still served after the session's end")
	}
}

// eventually waits on cond, up to a bound a loaded machine meets.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after a minute", what)
		}
	}
}
