package remote

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/internal/tmuxtest"
)

// olderBuild is another build of melmux, as an older release would be: this
// build's binaries with other contents (a trailer the loader ignores), so
// that the host tells them apart by their build ID, as it would two releases.
func olderBuild(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range []string{"melmux", "melmux-server", "melmux-agent"} {
		b, err := os.ReadFile(filepath.Join(binaries(t), n))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, "\nan older build of melmux\n"...)
		testexec.Write(t, filepath.Join(dir, n), b)
	}
	return dir
}

// builds are the melmux builds in the host user's data directory.
func (h *sshHost) builds() []string {
	h.t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(envOf(h.env, "XDG_DATA_HOME"), "melmux", "bin", "*"))
	var out []string
	for _, d := range dirs {
		if !strings.Contains(filepath.Base(d), ".part-") {
			out = append(out, d)
		}
	}
	return out
}

// sessionExes are the host's sessions, each with the binary its server
// runs.
func (h *sshHost) sessionExes() map[string]string {
	h.t.Helper()
	out, err := h.hostMelmux("ls", "--json")
	if err != nil {
		h.t.Fatalf("melmux ls on the host: %v: %s", err, out)
	}
	var sessions []struct {
		Name string
		PID  int
	}
	if err := json.Unmarshal([]byte(out), &sessions); err != nil {
		h.t.Fatalf("melmux ls --json on the host: %v: %s", err, out)
	}
	exes := map[string]string{}
	for _, s := range sessions {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", s.PID))
		if err != nil {
			h.t.Fatalf("the server of the host's session %s: %v", s.Name, err)
		}
		exes[s.Name] = exe
	}
	return exes
}

// A host that has another build of melmux: a session of an older build
// with a remote pane there brought that build; a session of this build
// copies its own beside it rather than run the other, and the older build's
// pane keeps running, typed into from its own session as before. A melmux
// of yet another version on the host's PATH is never run.
func TestRemoteVersionMismatch(t *testing.T) {
	h := newSSHHost(t)
	onPath := filepath.Join(h.dir, "path-melmux-ran")
	h.writeExec(filepath.Join(h.fakeBin, "melmux"), "#!/bin/sh\necho \"$*\" >> "+onPath+"\necho 'melmux 0.0.1'\nexit 1\n")

	old := newLocalSessionOf(t, h, olderBuild(t))
	oldID := strings.TrimSpace(old.must("open-pane", "--host", "h1", "--", "sh", "-c", `PS1='old$ ' exec sh`))
	old.shows(oldID, "old$")
	builds := h.builds()
	if len(builds) != 1 {
		t.Fatalf("the host's builds after the older session's pane: %v", builds)
	}
	oldBuild := builds[0]
	oldServer, err := os.Stat(filepath.Join(oldBuild, "melmux-server"))
	if err != nil {
		t.Fatal(err)
	}

	l := newLocalSession(t, h)
	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `PS1='new$ ' exec sh`))
	l.shows(id, "new$")
	builds = h.builds()
	if len(builds) != 2 {
		t.Fatalf("the host's builds after this build's pane: %v (want the older one and this one)", builds)
	}
	if again, err := os.Stat(filepath.Join(oldBuild, "melmux-server")); err != nil || again.Size() != oldServer.Size() || !again.ModTime().Equal(oldServer.ModTime()) {
		t.Fatalf("the older build on the host was touched: %v", err)
	}

	// Each host session runs the build its local side brought.
	exes := h.sessionExes()
	if len(exes) != 2 {
		t.Fatalf("the host's sessions: %v", exes)
	}
	for name, exe := range exes {
		screen, _ := h.hostMelmux("read-pane", "-s", name, "-t", "1")
		isOld := strings.Contains(screen, "old$")
		if got := filepath.Dir(exe) == oldBuild; got != isOld {
			t.Fatalf("host session %s (its pane: %q) runs %s; the older build is %s", name, strings.TrimSpace(screen), exe, oldBuild)
		}
	}

	old.must("send-keys", "-t", oldID, `echo still-""old<Enter>`)
	old.shows(oldID, "\nstill-old")
	l.must("send-keys", "-t", id, `echo this-""build<Enter>`)
	l.shows(id, "\nthis-build")
	if b, err := os.ReadFile(onPath); err == nil {
		t.Fatalf("the melmux on the host's PATH was run: %s", b)
	}
}

// timed runs melmux with args and fails the test when it took longer than
// within: a command on a pane whose host is gone answers, it never hangs.
func (l *localSession) timed(within time.Duration, args ...string) (string, string, error) {
	l.t.Helper()
	start := time.Now()
	out, errOut, err := l.run(args...)
	if took := time.Since(start); took > within {
		l.t.Fatalf("melmux %s took %s (more than %s): %v %s", strings.Join(args, " "), took.Round(time.Millisecond), within, err, errOut)
	}
	return out, errOut, err
}

// attached is a client attached to the local session in a terminal of
// its own: what a person sees, borders included.
func (l *localSession) attached(cols, rows int) *tmuxtest.Server {
	l.t.Helper()
	var cmd strings.Builder
	cmd.WriteString("exec env -i")
	for _, kv := range append(l.env, "TERM=xterm-256color") {
		cmd.WriteString(" " + shQuote(kv))
	}
	cmd.WriteString(" " + shQuote(filepath.Join(l.bin, "melmux")) + " attach")
	return tmuxtest.Start(l.t, cols, rows, cmd.String())
}

// A host that goes away for good (its sshd stopped, its network gone):
// the border and `melmux hosts` say so and why; typing into its pane and a
// message for its worker are refused saying so; what was last seen of them
// is read here; kill-pane ends them here; a new pane there fails naming
// the host; every one of these answers within seconds, and the session's
// local panes go on as before.
func TestRemoteHostGoneForGood(t *testing.T) {
	h := newSSHHost(t)
	model := modeltest.New(t, modeltest.Relay, []modeltest.Leg{{Expect: []string{"a task on h1"}, Text: "the worker's reply"}})
	u, err := url.Parse(model.URL())
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := h.reachable(u.Host)
	l := newLocalSession(t, h)
	l.env = append(l.env, "MELMUX_AGENT_PROVIDER=relay", "MELMUX_RELAY_URL=http://"+addr+"/relay", "MELMUX_RELAY_TOKEN="+modeltest.Key)
	outer := l.attached(200, 50)

	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--layout", "right", "--", "sh", "-c", `PS1='sh$ ' exec sh`))
	l.shows(id, "sh$")
	l.must("send-keys", "-t", id, `echo be""fore<Enter>`)
	l.shows(id, "\nbefore")
	res := l.spawn("--host", "h1", "--layout", "down", "--task", "a task on h1")
	wid := fmt.Sprint(res.ID)
	r := l.readAgent(wid)
	if !r.TurnDone || r.Reply != "the worker's reply" {
		t.Fatalf("read-agent of the worker on h1: %+v", r)
	}
	remote, _ := l.paneInfo(id)
	worker, _ := l.paneInfo(wid)

	_ = h.sshd.Process.Kill()
	h.must("ip", "link", "del", h.veth)
	gone := time.Now()
	eventually(t, "hosts saying h1 is disconnected", time.Minute, func() bool { return l.hostState("h1") == proto.LinkDisconnected })
	t.Logf("h1 was seen gone after %s", time.Since(gone).Round(time.Millisecond))
	var why string
	defer func() {
		if t.Failed() {
			t.Logf("hosts said last why: %s", why)
		}
	}()
	eventually(t, "hosts saying why h1 cannot be reached", time.Minute, func() bool {
		for _, hi := range l.hosts() {
			if hi.Host == "h1" {
				why = hi.Error
			}
		}
		// ssh's own words, from a try to reconnect.
		return strings.HasPrefix(why, "ssh h1: ")
	})
	t.Logf("hosts says why: %s", why)
	if !strings.Contains(why, "next try in") {
		t.Fatalf("hosts says of h1: %q", why)
	}
	outer.WaitFor("%0", time.Minute, "h1's panes' borders saying disconnected", func(screen string) bool {
		return strings.Count(screen, "disconnected since") >= 2 && strings.Contains(screen, "h1: ")
	})

	const within = 10 * time.Second
	_, errOut, err := l.timed(within, "send-keys", "-t", id, "echo lo\"\"st<Enter>")
	if err == nil || !strings.Contains(errOut, "disconnected since") || !strings.Contains(errOut, "nothing typed was sent") {
		t.Fatalf("send-keys to the gone host's pane: err %v, stderr %q", err, errOut)
	}
	_, errOut, err = l.timed(within, "send-agent", "-t", wid, "a message for nobody")
	if err == nil || !strings.Contains(errOut, "disconnected since") || !strings.Contains(errOut, "not queued") {
		t.Fatalf("send-agent to the gone host's worker: err %v, stderr %q", err, errOut)
	}
	out, errOut, err := l.timed(within, "read-agent", "-t", wid, "--json")
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || r.Reply != "the worker's reply" {
		t.Fatalf("read-agent of the gone host's worker: %v %s %s", err, out, errOut)
	}
	if out, errOut, err = l.timed(within, "read-pane", "-t", id); err != nil || !strings.Contains(out, "before") {
		t.Fatalf("read-pane of the gone host's pane: %v %q %s", err, out, errOut)
	}
	if _, errOut, err = l.timed(within, "explain", "-t", id); err != nil {
		t.Fatalf("explain of the gone host's pane: %v %s", err, errOut)
	}

	// The local pane is as it was.
	l.timed(within, "send-keys", "-t", "1", `echo local-""fine<Enter>`)
	l.shows("1", "local-fine")

	for _, p := range []proto.PaneInfo{remote, worker} {
		if _, errOut, err := l.timed(within, "kill-pane", "-t", fmt.Sprint(p.ID)); err != nil {
			t.Fatalf("kill-pane of pane %d on the gone host: %v %s", p.ID, err, errOut)
		}
		eventually(t, fmt.Sprintf("pane %d's melmux __remote ending", p.ID), within, func() bool {
			return syscall.Kill(p.PID, 0) != nil
		})
		if _, ok := l.paneInfo(fmt.Sprint(p.ID)); ok {
			t.Fatalf("pane %d still listed after kill-pane", p.ID)
		}
	}
	if hs := l.hosts(); len(hs) != 0 {
		t.Fatalf("hosts with no pane left on h1: %+v", hs)
	}

	_, errOut, err = l.timed(time.Minute, "open-pane", "--host", "h1", "--", "true")
	if err == nil || !strings.Contains(errOut, "h1") || !strings.Contains(errOut, "ssh h1: ") {
		t.Fatalf("open-pane on the gone host: err %v, stderr %q", err, errOut)
	}
	out, errOut, err = l.timed(within, "open-pane", "--", "sh", "-c", `echo a-new-""local-pane; exec sleep 1000`)
	if err != nil {
		t.Fatalf("open-pane here: %v %s", err, errOut)
	}
	l.shows(strings.TrimSpace(out), "a-new-local-pane")
}
