package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/internal/testreq"
)

// sshHost is Debian's OpenSSH server in a network namespace of the test's
// own, reached through a veth pair whose local end the test can take down:
// a network that drops. Its user's home, data and socket directories are
// the test's (sshd's SetEnv), never the real ones.
type sshHost struct {
	t       *testing.T
	dir     string
	env     []string // the host user's environment, for looking at it directly
	config  string   // the ssh client's private config: Host h1 (and h1-sparc), or the name given
	veth    string   // the local end of the link
	local   string   // its address, which the host reaches
	addr    string
	sshd    *exec.Cmd
	netns   *exec.Cmd
	fakeBin string
}

func newSSHHost(t *testing.T) *sshHost {
	t.Helper()
	return newSSHHostNamed(t, "h1")
}

// newSSHHostNamed is a host whose ssh alias is name (and name-sparc).
func newSSHHostNamed(t *testing.T, name string) *sshHost {
	t.Helper()
	testreq.Root(t, "a network namespace and sshd")
	for _, p := range []string{"ssh", "ssh-keygen", "ip", "unshare", "nsenter"} {
		testreq.Tool(t, p)
	}
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		sshd = testreq.Tool(t, "sshd")
	}
	dir := t.TempDir()
	h := &sshHost{t: t, dir: dir}
	// A second host of the same test takes another link.
	n := rand.IntN(200) + 20
	for exec.Command("ip", "link", "show", fmt.Sprintf("mxa%d", n)).Run() == nil {
		n = rand.IntN(200) + 20
	}
	h.veth = fmt.Sprintf("mxa%d", n)
	peer := fmt.Sprintf("mxb%d", n)
	h.addr = fmt.Sprintf("10.231.%d.2", n)
	h.local = fmt.Sprintf("10.231.%d.1", n)

	h.netns = exec.Command("unshare", "-n", "--", "sleep", "100000")
	if err := h.netns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.netns.Process.Kill(); _ = h.netns.Wait() })
	pid := fmt.Sprint(h.netns.Process.Pid)
	t.Cleanup(func() {
		// What still runs in the namespace ends with the test: sshd's
		// sessions on a link that died without a word, and their bridges,
		// last for hours, holding the test's stderr, for which go test waits.
		ns, err := os.Readlink("/proc/" + pid + "/ns/net")
		if err != nil {
			return
		}
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range procs {
			if d == "/proc/"+pid {
				continue
			}
			if n, _ := os.Readlink(d + "/ns/net"); n == ns {
				if p, err := strconv.Atoi(filepath.Base(d)); err == nil {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			}
		}
	})
	// unshare has made the namespace once its lo shows as DOWN in it.
	h.eventually("the namespace", func() bool {
		a, _ := os.Readlink("/proc/" + pid + "/ns/net")
		b, _ := os.Readlink("/proc/self/ns/net")
		return a != "" && a != b
	})
	h.must("ip", "link", "add", h.veth, "type", "veth", "peer", "name", peer, "netns", pid)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", h.veth).Run() })
	h.must("ip", "addr", "add", fmt.Sprintf("10.231.%d.1/30", n), "dev", h.veth)
	h.must("ip", "link", "set", h.veth, "up")
	h.must("nsenter", "-t", pid, "-n", "ip", "addr", "add", h.addr+"/30", "dev", peer)
	h.must("nsenter", "-t", pid, "-n", "ip", "link", "set", peer, "up")
	h.must("nsenter", "-t", pid, "-n", "ip", "link", "set", "lo", "up")

	for _, k := range []string{"hostkey", "userkey"} {
		h.must("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(dir, k))
	}
	pub, err := os.ReadFile(filepath.Join(dir, "userkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	h.write("authorized_keys", string(pub))
	hostPub, err := os.ReadFile(filepath.Join(dir, "hostkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	h.write("known_hosts", fmt.Sprintf("[%s]:2222 %s", h.addr, hostPub))

	// The host user's directories, and a uname that says sparc64 when the
	// client asks for it (the h1-sparc alias): a host melmux has no build for.
	home := filepath.Join(dir, "host-home")
	run := filepath.Join(dir, "host-run")
	h.fakeBin = filepath.Join(dir, "host-bin")
	for _, d := range []string{home, run, h.fakeBin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	realUname, err := exec.LookPath("uname")
	if err != nil {
		t.Fatal(err)
	}
	h.writeExec(filepath.Join(h.fakeBin, "uname"), "#!/bin/sh\nif [ \"$1\" = -m ] && [ -n \"${MELMUX_TEST_ARCH:-}\" ]; then echo \"$MELMUX_TEST_ARCH\"; exit 0; fi\nexec "+realUname+" \"$@\"\n")
	h.env = []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + run, "XDG_STATE_HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"PATH=" + h.fakeBin + ":/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/sh", "LANG=C.UTF-8"}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation directory
		t.Fatal(err)
	}
	h.write("sshd_config", strings.Join([]string{
		"Port 2222", "ListenAddress " + h.addr, "HostKey " + filepath.Join(dir, "hostkey"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"), "PidFile " + filepath.Join(dir, "sshd.pid"),
		"StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password", "AcceptEnv MELMUX_TEST_ARCH", "LogLevel ERROR",
		"SetEnv " + strings.Join(h.env, " "), "",
	}, "\n"))
	h.sshd = exec.Command("nsenter", "-t", pid, "-n", sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	h.sshd.Stderr = os.Stderr
	if err := h.sshd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.sshd.Process.Kill(); _ = h.sshd.Wait() })
	h.eventually("sshd listening", func() bool {
		c, err := net.DialTimeout("tcp", h.addr+":2222", time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	common := []string{"  HostName " + h.addr, "  Port 2222", "  User root", "  IdentityFile " + filepath.Join(dir, "userkey"),
		"  IdentitiesOnly yes", "  UserKnownHostsFile " + filepath.Join(dir, "known_hosts"), "  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes", "  ControlMaster no", "  LogLevel ERROR"}
	h.config = filepath.Join(dir, "ssh_config")
	h.write("ssh_config", "Host "+name+"\n"+strings.Join(common, "\n")+"\nHost "+name+"-sparc\n"+strings.Join(common, "\n")+"\n  SetEnv MELMUX_TEST_ARCH=sparc64\n")
	t.Cleanup(func() {
		// The host's sessions end with the test.
		socks, _ := filepath.Glob(filepath.Join(run, "melmux-*", "*.sock"))
		for _, s := range socks {
			cmd := exec.Command(filepath.Join(binaries(t), "melmux"), "kill-server", "-s", strings.TrimSuffix(filepath.Base(s), ".sock"))
			cmd.Env = h.env
			_ = cmd.Run()
		}
	})
	return h
}

func (h *sshHost) must(name string, args ...string) {
	h.t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		h.t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

func (h *sshHost) write(name, text string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, name), []byte(text), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h *sshHost) writeExec(path, text string) {
	h.t.Helper()
	testexec.Write(h.t, path, []byte(text))
}

// eventually polls ok until it holds, failing after a minute: a loaded
// machine is slow, never wrong.
func (h *sshHost) eventually(what string, ok func() bool) {
	h.t.Helper()
	eventually(h.t, what, time.Minute, ok)
}

func eventually(t *testing.T, what string, within time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hostMelmux runs melmux on the host directly, as its user would.
func (h *sshHost) hostMelmux(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(binaries(h.t), "melmux"), args...)
	cmd.Env = h.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// localSession is a session on this side with a private environment whose
// ssh is the real one with the test's config.
type localSession struct {
	t   *testing.T
	env []string
	bin string // the directory of the melmux it runs
}

func newLocalSession(t *testing.T, h *sshHost) *localSession {
	t.Helper()
	return newLocalSessionOf(t, h, binaries(t))
}

// newLocalSessionOf is a local session of the melmux build in bin.
func newLocalSessionOf(t *testing.T, h *sshHost, bin string) *localSession {
	t.Helper()
	env := hostEnv(t)
	env = append(env, "MELMUX_SSH=ssh -F "+h.config)
	l := &localSession{t: t, env: env, bin: bin}
	l.must("new", "-d", "-x", "120", "-y", "40")
	return l
}

func (l *localSession) run(args ...string) (string, string, error) {
	cmd := exec.Command(filepath.Join(l.bin, "melmux"), args...)
	cmd.Env = l.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func (l *localSession) must(args ...string) string {
	l.t.Helper()
	out, errOut, err := l.run(args...)
	if err != nil {
		l.t.Fatalf("melmux %s: %v: %s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// spawn runs spawn-agent --json with args and gives its result.
func (l *localSession) spawn(args ...string) proto.SpawnAgentResult {
	l.t.Helper()
	var res proto.SpawnAgentResult
	out := l.must(append([]string{"spawn-agent", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		l.t.Fatalf("spawn-agent --json: %v: %s", err, out)
	}
	return res
}

// readAgent waits up to 2 minutes for the turn of pane id's agent.
func (l *localSession) readAgent(id string) proto.ReadAgentResult {
	l.t.Helper()
	var r proto.ReadAgentResult
	out := l.must("read-agent", "-t", id, "--wait", "2m", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		l.t.Fatalf("read-agent --json: %v: %s", err, out)
	}
	return r
}

// shows waits for pane id to show text (its history included).
func (l *localSession) shows(id, text string) string {
	l.t.Helper()
	var screen string
	defer func() {
		if l.t.Failed() {
			l.t.Logf("pane %s last showed:\n%s", id, screen)
		}
	}()
	eventually(l.t, "pane "+id+" showing "+text, time.Minute, func() bool {
		screen = l.must("read-pane", "-t", id, "--all")
		return strings.Contains(screen, text)
	})
	return screen
}

func (l *localSession) hosts() []proto.HostInfo {
	l.t.Helper()
	var hs []proto.HostInfo
	if err := json.Unmarshal([]byte(l.must("hosts", "--json")), &hs); err != nil {
		l.t.Fatal(err)
	}
	return hs
}

func (l *localSession) hostState(host string) string {
	for _, h := range l.hosts() {
		if h.Host == host {
			return h.State
		}
	}
	return ""
}

// A pane on a host over real ssh: melmux copied there first (into the
// host user's data directory), its program run by the host's own session,
// drawn here, typed into here, listed with its host; a second pane on the
// same host copies nothing; a host melmux has no build for is refused
// saying so.
func TestRemotePaneOverSSH(t *testing.T) {
	h := newSSHHost(t)
	l := newLocalSession(t, h)
	start := time.Now()
	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `echo "remote home $HOME"; PS1='$ ' exec sh`))
	t.Logf("open-pane --host with a first copy of melmux took %s", time.Since(start).Round(time.Millisecond))
	home := strings.TrimPrefix(h.env[0], "HOME=")
	l.shows(id, "remote home "+home)

	builds, _ := filepath.Glob(filepath.Join(home, "data", "melmux", "bin", "*", "melmux-server"))
	if len(builds) != 1 {
		t.Fatalf("melmux-server in the host's data directory: %v", builds)
	}
	copied, _ := os.Stat(builds[0])

	l.must("send-keys", "-t", id, "echo $((6*7)) on $MELMUX_SESSION<Enter>")
	l.shows(id, "42 on r-")

	var panes []proto.PaneInfo
	if err := json.Unmarshal([]byte(l.must("list-panes", "--json")), &panes); err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		want := "h1"
		if fmt.Sprint(p.ID) != id {
			want = "<nil>"
		}
		got := "<nil>"
		if p.Host != nil {
			got = *p.Host
		}
		if got != want {
			t.Fatalf("pane %d: host %s, want %s", p.ID, got, want)
		}
	}
	if st := l.hostState("h1"); st != proto.LinkConnected {
		t.Fatalf("hosts says h1 is %q", st)
	}

	start = time.Now()
	id2 := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", "echo second; exec sh"))
	t.Logf("open-pane --host with melmux already there took %s", time.Since(start).Round(time.Millisecond))
	l.shows(id2, "second")
	if again, err := os.Stat(builds[0]); err != nil || !again.ModTime().Equal(copied.ModTime()) {
		t.Fatalf("melmux was copied again for a second pane (%v)", err)
	}

	_, errOut, err := l.run("open-pane", "--host", "h1-sparc", "--", "true")
	if err == nil || !strings.Contains(errOut, "sparc64") || !strings.Contains(errOut, "GOARCH=sparc64") {
		t.Fatalf("a host melmux has no build for: err %v, stderr %q", err, errOut)
	}
}

// The network is not the pane's lifetime: with the link cut, the host's
// pane runs on, hosts says disconnected, typing is refused saying so (and
// nothing of it reaches the host); once the link is back melmux has
// reconnected by itself and every line printed meanwhile shows here once.
func TestRemotePaneSurvivesTheNetwork(t *testing.T) {
	h := newSSHHost(t)
	l := newLocalSession(t, h)
	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `PS1='$ ' exec sh`))
	// Typed before the prompt, the loop's echo would have the prompt
	// printed after it, on the line of its first tick.
	l.shows(id, "$") // read-pane drops the space after it
	l.must("send-keys", "-t", id, `for i in $(seq 1 60); do echo tick-$i; sleep 0.25; done; echo fin""ished<Enter>`)
	l.shows(id, "tick-2\n")

	h.must("ip", "link", "set", h.veth, "down")
	cut := time.Now()
	eventually(t, "hosts saying h1 is disconnected", time.Minute, func() bool { return l.hostState("h1") == proto.LinkDisconnected })
	t.Logf("the drop was seen after %s", time.Since(cut).Round(time.Millisecond))
	_, errOut, err := l.run("send-keys", "-t", id, "echo lo\"\"st<Enter>")
	if err == nil || !strings.Contains(errOut, "disconnected since") || !strings.Contains(errOut, "nothing typed was sent") {
		t.Fatalf("typing while disconnected: err %v, stderr %q", err, errOut)
	}

	// The host's pane went on without the link.
	var sessions []struct{ Name string }
	out, err := h.hostMelmux("ls", "--json")
	if err != nil || json.Unmarshal([]byte(out), &sessions) != nil || len(sessions) != 1 {
		t.Fatalf("the host's sessions: %v %s", err, out)
	}
	eventually(t, "the host's pane finishing its loop", time.Minute, func() bool {
		out, _ := h.hostMelmux("read-pane", "-s", sessions[0].Name, "-t", "1", "--all")
		return strings.Contains(out, "\nfinished")
	})

	h.must("ip", "link", "set", h.veth, "up")
	back := time.Now()
	eventually(t, "hosts saying h1 is connected again", 2*time.Minute, func() bool { return l.hostState("h1") == proto.LinkConnected })
	t.Logf("reconnected %s after the link came back (down %s in all)", time.Since(back).Round(time.Millisecond), time.Since(cut).Round(time.Millisecond))
	screen := l.shows(id, "\nfinished")
	lines := strings.Split(screen, "\n")
	for i := 1; i <= 60; i++ {
		n := 0
		for _, ln := range lines {
			if ln == fmt.Sprintf("tick-%d", i) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("tick-%d shows %d times here:\n%s", i, n, screen)
		}
	}
	if strings.Contains(screen, "lost") {
		t.Fatalf("the refused typing reached the host:\n%s", screen)
	}
	l.must("send-keys", "-t", id, `echo ba""ck<Enter>`)
	l.shows(id, "\nback")
}

// hostSessions are the names of the host user's running sessions.
func (h *sshHost) hostSessions() []string {
	h.t.Helper()
	out, err := h.hostMelmux("ls", "--json")
	if err != nil {
		if strings.Contains(out, "no server") || strings.Contains(out, "no session") {
			return nil
		}
		h.t.Fatalf("melmux ls on the host: %v: %s", err, out)
	}
	var sessions []struct{ Name string }
	if err := json.Unmarshal([]byte(out), &sessions); err != nil {
		h.t.Fatalf("melmux ls --json on the host: %v: %s", err, out)
	}
	var names []string
	for _, s := range sessions {
		names = append(names, s.Name)
	}
	return names
}

// paneInfo is pane id's row of list-panes.
func (l *localSession) paneInfo(id string) (proto.PaneInfo, bool) {
	l.t.Helper()
	var panes []proto.PaneInfo
	if err := json.Unmarshal([]byte(l.must("list-panes", "--json")), &panes); err != nil {
		l.t.Fatal(err)
	}
	for _, p := range panes {
		if fmt.Sprint(p.ID) == id {
			return p, true
		}
	}
	return proto.PaneInfo{}, false
}

// A remote pane's end is its program's: the local pane exits with the
// host's program's code and the host's session ends with it; kill-pane of
// a remote pane ends the host's session too, leaving no r-... behind.
func TestRemotePaneEnds(t *testing.T) {
	h := newSSHHost(t)
	l := newLocalSession(t, h)
	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `echo ready; read x; exit 7`))
	l.shows(id, "ready")
	if s := h.hostSessions(); len(s) != 1 || !strings.HasPrefix(s[0], "r-") {
		t.Fatalf("the host's sessions with one remote pane: %v", s)
	}
	l.must("send-keys", "-t", id, "<Enter>")
	l.must("wait", "-t", id, "--exit", "--timeout", "60s")
	p, ok := l.paneInfo(id)
	if !ok || p.Status != "exited" || p.ExitCode == nil || *p.ExitCode != 7 {
		t.Fatalf("the local pane after its host's program exited 7: %+v (listed %v)", p, ok)
	}
	eventually(t, "the host's session ending with its program", time.Minute, func() bool { return len(h.hostSessions()) == 0 })

	id = strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `echo again; exec sleep 1000`))
	l.shows(id, "again")
	if s := h.hostSessions(); len(s) != 1 {
		t.Fatalf("the host's sessions with the second remote pane: %v", s)
	}
	l.must("kill-pane", "-t", id)
	eventually(t, "the host's session ending with kill-pane", time.Minute, func() bool { return len(h.hostSessions()) == 0 })
}

// explain is explain --json of pane id.
func (l *localSession) explain(id string) proto.ExplainResult {
	l.t.Helper()
	var x proto.ExplainResult
	if err := json.Unmarshal([]byte(l.must("explain", "-t", id, "--json")), &x); err != nil {
		l.t.Fatal(err)
	}
	return x
}

// A remote pane's agent kind comes from its processes on the host, as a
// local pane's does from its own: the host's session looks them up and the
// bridge tells. The stand-in claude prints nothing an agent's screen would
// show, so only its process says what it is.
func TestRemotePaneAgentKind(t *testing.T) {
	h := newSSHHost(t)
	h.writeExec(filepath.Join(h.fakeBin, "claude"), "#!/bin/sh\necho 'a stand-in'\nwhile sleep 1; do :; done\n")
	l := newLocalSession(t, h)
	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `echo shell-ready; PS1='$ ' exec sh`))
	l.shows(id, "shell-ready")
	var x proto.ExplainResult
	eventually(t, "explain naming the host's shell", time.Minute, func() bool {
		x = l.explain(id)
		return x.Foreground == "sh"
	})
	if x.Kind != "" {
		t.Fatalf("a shell on the host taken for an agent: %+v", x)
	}
	l.must("send-keys", "-t", id, "claude<Enter>")
	l.shows(id, "a stand-in")
	eventually(t, "explain seeing claude on the host", time.Minute, func() bool {
		x = l.explain(id)
		return x.Kind == "claude"
	})
	if !strings.Contains(x.KindEvidence, "on h1:") || !strings.Contains(x.KindEvidence, "claude") {
		t.Fatalf("the kind's evidence: %q", x.KindEvidence)
	}
	var panes []proto.PaneInfo
	if err := json.Unmarshal([]byte(l.must("list-panes", "--json")), &panes); err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if fmt.Sprint(p.ID) == id && (p.Agent == nil || p.Agent.Kind != "claude") {
			t.Fatalf("list-panes: the remote pane's agent %+v", p.Agent)
		}
	}
	l.must("send-keys", "-t", id, "<C-c>")
	eventually(t, "explain seeing the shell again", time.Minute, func() bool {
		x = l.explain(id)
		return x.Kind == "" && x.Foreground == "sh"
	})
}

// reachable serves addr (host:port, the scripted model's loopback address)
// on the link's local address, which the host reaches as it would reach a
// model's endpoint itself. It returns the address and the remote addresses
// of the connections it took.
func (h *sshHost) reachable(addr string) (string, func() []string) {
	h.t.Helper()
	ln, err := net.Listen("tcp", h.local+":0")
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var from []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			from = append(from, c.RemoteAddr().String())
			mu.Unlock()
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(from)
	}
}

// A worker agent on a host belongs to the local session: spawn-agent
// --host answers once it registered here, read-agent waits for its task's
// reply and send-agent gives it a next turn, as for a local worker. It
// reaches the scripted model from the host, by the link's address, as a
// real host reaches its model's endpoint; its task and the provider's
// token are not on the host's command lines.
func TestRemoteWorkerAgent(t *testing.T) {
	h := newSSHHost(t)
	model := modeltest.New(t, modeltest.Relay, []modeltest.Leg{
		{Expect: []string{"count the host's files"}, Text: "done on the host"},
		{Expect: []string{"and a second thing"}, Text: "second reply from the host"},
	})
	u, err := url.Parse(model.URL())
	if err != nil {
		t.Fatal(err)
	}
	addr, callers := h.reachable(u.Host)
	l := newLocalSession(t, h)
	l.env = append(l.env, "MELMUX_AGENT_PROVIDER=relay", "MELMUX_RELAY_URL=http://"+addr+"/relay", "MELMUX_RELAY_TOKEN="+modeltest.Key)

	start := time.Now()
	res := l.spawn("--host", "h1", "--task", "count the host's files")
	t.Logf("spawn-agent --host took %s (with the first copy of melmux)", time.Since(start).Round(time.Millisecond))
	id := fmt.Sprint(res.ID)
	var r proto.ReadAgentResult
	r = l.readAgent(id)
	if !r.TurnDone || r.Reply != "done on the host" {
		t.Fatalf("read-agent after the task: %+v", r)
	}
	p, ok := l.paneInfo(id)
	if !ok || p.Host == nil || *p.Host != "h1" || p.Agent == nil || p.Agent.Kind != "melmux" || p.Agent.Role != "worker" || p.Agent.ID != res.AgentID {
		t.Fatalf("the worker's pane here: %+v agent %+v", p, p.Agent)
	}
	for _, c := range callers() {
		if !strings.HasPrefix(c, h.addr+":") {
			t.Fatalf("the model was called from %s, not from the host %s", c, h.addr)
		}
	}
	if len(callers()) == 0 {
		t.Fatal("the model was never called through the host's route")
	}

	l.must("send-agent", "-t", id, "and a second thing")
	r = l.readAgent(id)
	if !r.TurnDone || r.Reply != "second reply from the host" {
		t.Fatalf("read-agent after send-agent: %+v", r)
	}

	// Its secrets are in its environment, not on a command line of the
	// host (which any of its users may read).
	hostNet, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", h.netns.Process.Pid))
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range procs {
		if ns, _ := os.Readlink(d + "/ns/net"); ns != hostNet {
			continue // not the host's
		}
		f := d + "/cmdline"
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte("count the host's files")) || bytes.Contains(b, []byte(modeltest.Key)) {
			t.Fatalf("%s holds the task or the token: %q", f, b)
		}
	}
	if s := h.hostSessions(); len(s) != 1 {
		t.Fatalf("the host's sessions with the worker: %v", s)
	}
	l.must("kill-pane", "-t", id)
	eventually(t, "the host's session ending with the worker's pane", time.Minute, func() bool { return len(h.hostSessions()) == 0 })
}

// gatedProxy serves a TCP address inside the host's network namespace (its
// loopback, as a model's endpoint on the host itself would be) that leads
// to addr here, so that the host reaches it with the link down; hold keeps
// every answer, on new connections and kept-alive ones, until it is
// released.
type gatedProxy struct {
	addr string
	mu   sync.Mutex // guards gate
	gate chan struct{}
}

func (h *sshHost) insideProxy(addr string) *gatedProxy {
	h.t.Helper()
	type made struct {
		ln  net.Listener
		err error
	}
	done := make(chan made, 1)
	go func() {
		// A socket belongs to the namespace of the thread that made it.
		runtime.LockOSThread()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			done <- made{nil, err}
			return // the thread ends with the goroutine, locked
		}
		defer self.Close()
		target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", h.netns.Process.Pid))
		if err != nil {
			done <- made{nil, err}
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- made{nil, err}
			return
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if unix.Setns(int(self.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		done <- made{ln, err}
	}()
	m := <-done
	if m.err != nil {
		h.t.Fatalf("listening in the host's namespace: %v", m.err)
	}
	h.t.Cleanup(func() { m.ln.Close() })
	p := &gatedProxy{addr: m.ln.Addr().String()}
	go func() {
		for {
			c, err := m.ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
				// The gate is looked at before every answer's bytes, not
				// once a connection: a model client keeps its connection
				// alive from one turn to the next.
				buf := make([]byte, 32<<10)
				for {
					n, err := up.Read(buf)
					if n > 0 {
						p.mu.Lock()
						gate := p.gate
						p.mu.Unlock()
						if gate != nil {
							<-gate
						}
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

// hold keeps the answers given from now on; the function it returns lets
// them go.
func (p *gatedProxy) hold() func() {
	gate := make(chan struct{})
	p.mu.Lock()
	p.gate = gate
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.gate = nil
			p.mu.Unlock()
			close(gate)
		})
	}
}

// A remote worker survives a dropped link: cut mid-turn, it finishes the
// turn on the host meanwhile (its model is reached there without the link),
// a lead's read-agent waiting on that turn gets its reply once the link is
// back, a send-agent while the link is down is refused saying so (and never
// reaches the worker), and the worker, still registered here, takes a next
// turn.
func TestRemoteWorkerSurvivesTheNetwork(t *testing.T) {
	h := newSSHHost(t)
	model := modeltest.New(t, modeltest.Relay, []modeltest.Leg{
		{Expect: []string{"first task"}, Text: "first reply"},
		{Expect: []string{"the long turn"}, Text: "made while the link was down"},
		{Expect: []string{"after the link"}, Text: "third reply"},
	})
	u, err := url.Parse(model.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := h.insideProxy(u.Host)
	l := newLocalSession(t, h)
	l.env = append(l.env, "MELMUX_AGENT_PROVIDER=relay", "MELMUX_RELAY_URL=http://"+proxy.addr+"/relay", "MELMUX_RELAY_TOKEN="+modeltest.Key)

	res := l.spawn("--host", "h1", "--task", "first task")
	id := fmt.Sprint(res.ID)
	var r proto.ReadAgentResult
	r = l.readAgent(id)
	if !r.TurnDone || r.Reply != "first reply" {
		t.Fatalf("read-agent after the task: %+v", r)
	}

	release := proxy.hold()
	defer release()
	l.must("send-agent", "-t", id, "the long turn")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := model.Wait(ctx, 2); err != nil {
		t.Fatalf("the second turn's request: %v", err)
	}
	// A lead waiting on the turn, from before the cut.
	wait := exec.Command(filepath.Join(binaries(t), "melmux"), "read-agent", "-t", id, "--wait", "4m", "--json")
	wait.Env = l.env
	var waitOut, waitErr bytes.Buffer
	wait.Stdout, wait.Stderr = &waitOut, &waitErr
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- wait.Wait() }()

	h.must("ip", "link", "set", h.veth, "down")
	defer h.must("ip", "link", "set", h.veth, "up")
	eventually(t, "hosts saying h1 is disconnected", time.Minute, func() bool { return l.hostState("h1") == proto.LinkDisconnected })
	_, errOut, err := l.run("send-agent", "-t", id, "a lost message")
	if err == nil || !strings.Contains(errOut, "disconnected since") || !strings.Contains(errOut, "not queued") {
		t.Fatalf("send-agent while disconnected: err %v, stderr %q", err, errOut)
	}

	// The turn ends on the host with the link still down.
	release()
	sessions := h.hostSessions()
	if len(sessions) != 1 {
		t.Fatalf("the host's sessions: %v", sessions)
	}
	eventually(t, "the worker on the host finishing its turn", 2*time.Minute, func() bool {
		out, _ := h.hostMelmux("read-pane", "-s", sessions[0], "-t", "1", "--all")
		return strings.Contains(out, "made while the link was down")
	})
	select {
	case err := <-waited:
		t.Fatalf("read-agent ended with the link down: %v: %s %s", err, waitOut.String(), waitErr.String())
	default:
	}

	h.must("ip", "link", "set", h.veth, "up")
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("read-agent waiting on the turn across the cut: %v: %s", err, waitErr.String())
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("read-agent still waiting 3 minutes after the link came back")
	}
	if err := json.Unmarshal(waitOut.Bytes(), &r); err != nil {
		t.Fatalf("read-agent --json: %v: %s", err, waitOut.String())
	}
	if !r.TurnDone || r.Agent == nil || r.Agent.Turn != 2 || r.Reply != "made while the link was down" {
		t.Fatalf("read-agent across the cut: %+v", r)
	}

	l.must("send-agent", "-t", id, "after the link")
	r = l.readAgent(id)
	if !r.TurnDone || r.Agent == nil || r.Agent.Turn != 3 || r.Reply != "third reply" {
		t.Fatalf("the turn after the link came back: %+v", r)
	}
	for _, q := range model.Requests() {
		for _, m := range q.Messages {
			if strings.Contains(m.Content, "a lost message") {
				t.Fatalf("the message refused while disconnected reached the worker: %+v", q)
			}
		}
	}
}

// A lead's spawn_agent is placed by the session's config: [agent]
// spawn_hosts lists this machine and h1, [hosts] allows one agent each; the
// first worker goes to the one with the fewest agents (both none: the first
// listed), the second to the other, and a third is refused naming each
// host's count. The lead's tool (melmux tool, as a melmux lead calls it)
// says where each went; the tool's arguments say nothing of hosts.
func TestLeadPlacement(t *testing.T) {
	h := newSSHHost(t)
	model := modeltest.New(t, modeltest.Relay, []modeltest.Leg{{Text: "done one"}, {Text: "done two"}})
	u, err := url.Parse(model.URL())
	if err != nil {
		t.Fatal(err)
	}
	// Reached on the link's address, from here and from the host alike.
	addr, _ := h.reachable(u.Host)
	l := newLocalSession(t, h)
	l.env = append(l.env, "MELMUX_AGENT_PROVIDER=relay", "MELMUX_RELAY_URL=http://"+addr+"/relay", "MELMUX_RELAY_TOKEN="+modeltest.Key)
	var home string
	for _, kv := range l.env {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			home = v
		}
	}
	if err := os.MkdirAll(filepath.Join(home, "melmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := "[agent]\nspawn_hosts = [\"local\", \"h1\"]\n\n[hosts.local]\nmax_agents = 1\n\n[hosts.h1]\nmax_agents = 1\n"
	if err := os.WriteFile(filepath.Join(home, "melmux", "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}

	out := l.must("tool", "spawn_agent", `{"layout": "tab", "task": "first worker's task"}`)
	if !strings.Contains(out, "on this machine") {
		t.Fatalf("the first worker (no agents anywhere: the first host listed):\n%s", out)
	}
	out = l.must("tool", "spawn_agent", `{"layout": "tab", "task": "second worker's task"}`)
	if !strings.Contains(out, "on host h1") {
		t.Fatalf("the second worker (this machine full):\n%s", out)
	}
	var panes []proto.PaneInfo
	if err := json.Unmarshal([]byte(l.must("list-panes", "--json")), &panes); err != nil {
		t.Fatal(err)
	}
	remote := 0
	for _, p := range panes {
		if p.Host != nil && *p.Host == "h1" {
			remote++
		}
	}
	if remote != 1 {
		t.Fatalf("panes on h1: %d, want the second worker's", remote)
	}
	_, errOut, err := l.run("tool", "spawn_agent", `{"layout": "tab", "task": "a third"}`)
	if err == nil || !strings.Contains(errOut, "no host of [agent] spawn_hosts has room") ||
		!strings.Contains(errOut, "h1 (1 of 1 agents)") || !strings.Contains(errOut, "local (1 of 1 agents)") {
		t.Fatalf("a third worker with every host full: err %v, stderr %q", err, errOut)
	}
}

// envOf is the value of name in env.
func envOf(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// serverPID is the pid of the local session's server.
func (l *localSession) serverPID() int {
	l.t.Helper()
	out := l.must("ls", "--json")
	var sessions []struct {
		Name string
		PID  int
	}
	if err := json.Unmarshal([]byte(out), &sessions); err != nil || len(sessions) != 1 || sessions[0].PID == 0 {
		l.t.Fatalf("ls --json: %v: %s", err, out)
	}
	return sessions[0].PID
}

// kill9 kills the local session's server outright, as a crash would, and
// waits until its socket refuses connections.
func (l *localSession) kill9() {
	l.t.Helper()
	if err := syscall.Kill(l.serverPID(), syscall.SIGKILL); err != nil {
		l.t.Fatal(err)
	}
	eventually(l.t, "the killed server's socket refusing", time.Minute, func() bool {
		_, _, err := l.run("list-panes")
		return err != nil
	})
}

// stop ends the local session's server with SIGTERM, as the machine
// shutting down does (it keeps its state file for a restore), and waits
// for its process to be gone.
func (l *localSession) stop() {
	l.t.Helper()
	pid := l.serverPID()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		l.t.Fatal(err)
	}
	eventually(l.t, "the stopped server gone", time.Minute, func() bool {
		return syscall.Kill(pid, 0) != nil
	})
}

// A session restored after its server was killed outright links its remote
// pane to the host's session, which ran on meanwhile, instead of starting
// the program anew: the shell keeps what was set in it, what it printed
// meanwhile shows, and the host runs one session, not two.
func TestRemoteRestoreAfterKill9(t *testing.T) {
	restoreAfter(t, (*localSession).kill9)
}

// So does one whose server was told to stop (SIGTERM: the machine shutting
// down), which keeps its state file for a restore: it stops answering
// before it closes its panes, so they leave their host sessions running.
// Before, they ended them, and the restore started each program anew.
func TestRemoteRestoreAfterSIGTERM(t *testing.T) {
	restoreAfter(t, (*localSession).stop)
}

func restoreAfter(t *testing.T, end func(*localSession)) {
	h := newSSHHost(t)
	l := newLocalSession(t, h)
	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `PS1='sh$ ' exec sh`))
	// Typing that reaches the host before the shell printed its prompt is
	// echoed by the terminal ahead of it, and the shell's answer then
	// follows the prompt on its line: wait for the prompt first.
	l.shows(id, "sh$")
	l.must("send-keys", "-t", id, `x=remem""bered; echo se""t<Enter>`)
	l.shows(id, "\nset\nsh$") // and the prompt after, for the next line's sake
	state := filepath.Join(envOf(l.env, "XDG_STATE_HOME"), "melmux", "sessions", "main.json")
	eventually(t, "the state file holding the remote pane", time.Minute, func() bool {
		b, _ := os.ReadFile(state)
		return bytes.Contains(b, []byte("__remote"))
	})
	if s := h.hostSessions(); len(s) != 1 {
		t.Fatalf("the host's sessions before the kill: %v", s)
	}
	l.must("send-keys", "-t", id, `sleep 3; echo slept-through<Enter>`)

	end(l)
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("last seen on the host: %s", last)
		}
	}()
	eventually(t, "the host's shell printing with no local session", time.Minute, func() bool {
		s := h.hostSessions()
		if len(s) != 1 {
			last = fmt.Sprintf("sessions %v", s)
			return false
		}
		out, _ := h.hostMelmux("read-pane", "-s", s[0], "-t", "1", "--all")
		last = out
		return strings.Contains(out, "\nslept-through")
	})

	l.must("restore", "-d")
	eventually(t, "hosts saying h1 is connected after the restore", 2*time.Minute, func() bool { return l.hostState("h1") == proto.LinkConnected })
	l.shows(id, "\nslept-through")
	l.must("send-keys", "-t", id, `echo "got $x"<Enter>`)
	l.shows(id, "got remembered")
	if s := h.hostSessions(); len(s) != 1 {
		t.Fatalf("the host's sessions after the restore: %v (a second is a pane started anew)", s)
	}
	p, ok := l.paneInfo(id)
	if !ok || p.Host == nil || *p.Host != "h1" || !strings.Contains(p.Command, "exec sh") {
		t.Fatalf("the restored pane: %+v", p)
	}
}

// A worker on a host outlives a restart of the local session: killed
// outright (kill -9) with a turn under way that ends after the restore, or
// stopped (SIGTERM) with a turn that ends on the host while no session
// runs here. After `restore -d` the worker, whose connections the relay
// closed as the restored pane linked again, joins the restored session:
// list-panes shows it as the melmux worker it was, at its turn; read-agent
// returns that turn's reply; send-agent gives it the next turn id, and
// read-agent that turn's reply. The host runs one session throughout.
// Before, the worker ended with its connections (the session went away):
// the restored session listed no agent in its pane.
func TestRemoteWorkerRestoreAfterKill9(t *testing.T) {
	workerRestoreAfter(t, (*localSession).kill9, false)
}

func TestRemoteWorkerRestoreAfterSIGTERM(t *testing.T) {
	workerRestoreAfter(t, (*localSession).stop, true)
}

// workerRestoreAfter ends the local session with end while the worker's
// second turn waits for its model, and restores it; endsBefore lets the
// turn end before the restore, else after.
func workerRestoreAfter(t *testing.T, end func(*localSession), endsBefore bool) {
	h := newSSHHost(t)
	model := modeltest.New(t, modeltest.Relay, []modeltest.Leg{
		{Expect: []string{"first task"}, Text: "first reply"},
		{Expect: []string{"the long turn"}, Text: "made across the restart"},
		{Expect: []string{"made across the restart", "after the restore"}, Text: "third reply"},
	})
	u, err := url.Parse(model.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := h.insideProxy(u.Host)
	l := newLocalSession(t, h)
	l.env = append(l.env, "MELMUX_AGENT_PROVIDER=relay", "MELMUX_RELAY_URL=http://"+proxy.addr+"/relay", "MELMUX_RELAY_TOKEN="+modeltest.Key)

	res := l.spawn("--host", "h1", "--task", "first task")
	id := fmt.Sprint(res.ID)
	if r := l.readAgent(id); !r.TurnDone || r.Reply != "first reply" {
		t.Fatalf("read-agent after the task: %+v", r)
	}
	state := filepath.Join(envOf(l.env, "XDG_STATE_HOME"), "melmux", "sessions", "main.json")
	eventually(t, "the state file holding the worker's pane", time.Minute, func() bool {
		b, _ := os.ReadFile(state)
		return bytes.Contains(b, []byte("__remote"))
	})

	release := proxy.hold()
	defer release()
	if turn := strings.TrimSpace(l.must("send-agent", "-t", id, "the long turn")); turn != "2" {
		t.Fatalf("send-agent gave turn %q, want 2", turn)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := model.Wait(ctx, 2); err != nil {
		t.Fatalf("the second turn's request: %v", err)
	}

	end(l)
	sessions := h.hostSessions()
	if len(sessions) != 1 {
		t.Fatalf("the host's sessions with no local session: %v", sessions)
	}
	hostPane := func() string {
		out, _ := h.hostMelmux("read-pane", "-s", sessions[0], "-t", "1", "--all")
		return out
	}
	defer func() {
		if t.Failed() {
			t.Logf("the worker's pane on the host:\n%s", hostPane())
		}
	}()
	if endsBefore {
		release()
		eventually(t, "the worker on the host finishing its turn with no local session", 2*time.Minute, func() bool {
			return strings.Contains(hostPane(), "made across the restart")
		})
	}

	l.must("restore", "-d")
	eventually(t, "hosts saying h1 is connected after the restore", 2*time.Minute, func() bool { return l.hostState("h1") == proto.LinkConnected })
	var agent *proto.AgentInfo
	eventually(t, "the worker registered in the restored session", 2*time.Minute, func() bool {
		p, ok := l.paneInfo(id)
		agent = p.Agent
		return ok && agent != nil && agent.Kind == "melmux" && agent.ID == res.AgentID && agent.State != "exited"
	})
	want := "idle"
	if !endsBefore {
		want = "working"
	}
	if agent.Role != "worker" || agent.Turn != 2 || agent.State != want {
		t.Fatalf("the worker in the restored session: %+v, want a worker %s on turn 2", agent, want)
	}
	release()
	r := l.readAgent(id)
	if !r.TurnDone || r.Agent == nil || r.Agent.Turn != 2 || r.Reply != "made across the restart" {
		t.Fatalf("read-agent of the turn across the restart: %+v", r)
	}

	if turn := strings.TrimSpace(l.must("send-agent", "-t", id, "after the restore")); turn != "3" {
		t.Fatalf("send-agent after the restore gave turn %q, want 3", turn)
	}
	r = l.readAgent(id)
	if !r.TurnDone || r.Agent == nil || r.Agent.Turn != 3 || r.Reply != "third reply" {
		t.Fatalf("the turn after the restore: %+v", r)
	}
	if p, ok := l.paneInfo(id); !ok || p.Agent == nil || p.Agent.Role != "worker" || p.Agent.Turn != 3 || p.Agent.State != "idle" {
		t.Fatalf("the worker after its turn in the restored session: %+v", p.Agent)
	}
	if s := h.hostSessions(); len(s) != 1 || s[0] != sessions[0] {
		t.Fatalf("the host's sessions after the restore: %v, want %v alone", s, sessions)
	}
	if out := hostPane(); strings.Contains(out, "went away") {
		t.Fatalf("the worker said its session went away:\n%s", out)
	}
}
