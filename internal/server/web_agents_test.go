package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/melmux/melmux/internal/proto"
)

// TestFloodingPaneDoesNotRebuildTheAgents: a page watching a pane that
// prints without pause gets a frame every 50 ms, each asking for the
// session's state; the agents list in it is built again only when an
// agent changed or once a second, not for every frame.
func TestFloodingPaneDoesNotRebuildTheAgents(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s, c := startServer(t, withWeb)
	call(t, c, "new", proto.NewParams{Command: []string{"/bin/sh", "-c", "i=0; while :; do i=$((i+1)); echo line $i; done"}}, nil)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "right", Command: "sleep 600", NoWait: true}, nil)
	var res proto.WebResult
	call(t, c, "web", proto.WebParams{}, &res)
	resp, base := webLogin(t, res.URL)
	if resp.StatusCode != 200 || len(resp.Cookies()) == 0 {
		t.Fatalf("login: %s", resp.Status)
	}
	ck := resp.Cookies()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}, "Cookie": {ck.Name + "=" + ck.Value}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"t":"watch","panes":[1]}`)); err != nil {
		t.Fatal(err)
	}
	const frames = 40
	var start time.Time
	var before int64
	for n := 0; n < frames; {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("after %d frames of the flooding pane: %v", n, err)
		}
		var m struct {
			T    string `json:"t"`
			Pane int    `json:"pane"`
		}
		json.Unmarshal(b, &m)
		if m.T != "screen" || m.Pane != 1 {
			continue
		}
		if start.IsZero() { // the first frame's build is the first ever
			start, before = time.Now(), s.web.agents.builds.Load()
			continue
		}
		n++
	}
	elapsed := time.Since(start)
	builds := s.web.agents.builds.Load() - before
	// One a second, and one more for a second begun; the watcher of the
	// sleeping pane may decide once more as the session settles.
	if most := int64(elapsed/webAgentsEvery) + 3; builds > most {
		t.Errorf("%d frames of a flooding pane in %v built the agents list %d times, want at most %d", frames, elapsed.Round(time.Millisecond), builds, most)
	}
	t.Logf("%d frames in %v, the agents list built %d times", frames, elapsed.Round(time.Millisecond), builds)
}
