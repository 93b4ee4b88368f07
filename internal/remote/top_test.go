package remote

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// melmux top shows a remote pane's program's CPU and memory as its host
// reads them, not those of the mirror that draws it here: a program holding
// 80 MB and a busy loop on h1 show as such, in a HOST column with h1's
// total; once h1 is cut off its pane shows "-" (unknown, not nothing), and
// top still answers at once.
func TestRemoteTop(t *testing.T) {
	h := newSSHHost(t)
	l := newLocalSession(t, h)
	hog := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `echo ho""g; (head -c 80000000 /dev/zero; exec sleep 1000) | tail -c 80000000`))
	busy := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `echo bu""sy; while :; do :; done`))
	l.shows(hog, "hog")
	l.shows(busy, "busy")

	var last []proto.PaneInfo
	byID := func(id string) proto.PaneInfo {
		for _, p := range last {
			if id == strconv.Itoa(p.ID) {
				return p
			}
		}
		return proto.PaneInfo{}
	}
	defer func() {
		if t.Failed() {
			b, _ := json.Marshal(last)
			t.Logf("list-panes --resources said last: %s", b)
		}
	}()
	eventually(t, "list-panes --resources giving h1's figures", 2*time.Minute, func() bool {
		if err := json.Unmarshal([]byte(l.must("list-panes", "--json", "--resources")), &last); err != nil {
			t.Fatal(err)
		}
		m, b := byID(hog), byID(busy)
		return m.RSS != nil && *m.RSS > 60<<20 && b.CPU != nil && *b.CPU > 5
	})
	out := l.must("top", "--once")
	for _, want := range []string{
		`(?m)^PANE +TAB +HOST +CPU% +MEM +LEGS +TOKENS IN +OUT +COST +STATE +PROGRAM$`,
		`(?m)^1\* +0 +local +[0-9.]+ +[0-9.]+[KM] `,
		`(?m)^` + hog + ` +[0-9]+ +h1 +[0-9.]+ +[0-9]+M `,
		`(?m)^all +h1 +[0-9.]+ +[0-9]+M +0 +0 +0 +- +2 panes$`,
		`(?m)^all +[0-9.]+ +[0-9.]+M +0 +0 +0 +- +3 panes$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("top --once: no line matching %s in:\n%s", want, out)
		}
	}
	l.must("kill-pane", "-t", busy) // its core back

	h.must("ip", "link", "set", h.veth, "down")
	defer h.must("ip", "link", "set", h.veth, "up")
	eventually(t, "hosts saying h1 is disconnected", time.Minute, func() bool { return l.hostState("h1") == proto.LinkDisconnected })
	eventually(t, "top showing h1's pane unmeasured", time.Minute, func() bool {
		start := time.Now()
		out = l.must("top", "--once")
		if took := time.Since(start); took > 10*time.Second {
			t.Fatalf("top --once with h1 cut off took %s", took)
		}
		return regexp.MustCompile(`(?m)^` + hog + ` +[0-9]+ +h1 +- +- `).MatchString(out)
	})
}
