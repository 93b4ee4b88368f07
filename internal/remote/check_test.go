package remote

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// check runs hosts --check dest --json and returns its result and whether
// melmux exited 0.
func (l *localSession) check(dest string) (CheckResult, bool) {
	l.t.Helper()
	out, errOut, err := l.run("hosts", "--check", dest, "--json")
	var res CheckResult
	if jerr := json.Unmarshal([]byte(out), &res); jerr != nil {
		l.t.Fatalf("hosts --check %s --json: %v (%v): %s %s", dest, jerr, err, out, errOut)
	}
	l.t.Logf("hosts --check %s: %+v", dest, res.Steps)
	return res, err == nil
}

func stepOf(t *testing.T, res CheckResult, name string) CheckStep {
	t.Helper()
	for _, st := range res.Steps {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no step %q in %+v", name, res.Steps)
	return CheckStep{}
}

// hosts --check DEST tests a host end to end without opening a pane: on a
// host without this build it says the build would be copied (and its
// size) and copies nothing, measuring the round trip over ssh; once a pane
// brought the build, a session of its own starts there, answers over a
// bridge and is ended, and the round trip is a ping over that link. A host
// ssh cannot reach fails with ssh's own words and a non-zero status, as
// does one of a platform with no build. `hosts` gives a connected host's
// latency, measured by pings over the pane's live link, and none once the
// link is down.
func TestHostsCheck(t *testing.T) {
	h := newSSHHost(t)
	l := newLocalSession(t, h)

	res, ok := l.check("h1")
	if !ok || !res.OK {
		t.Fatalf("a host without the build failed the check: %+v", res)
	}
	for name, want := range map[string]string{"ssh": CheckOK, "platform": CheckOK, "build": CheckOK, "data dir": CheckOK, "session": CheckSkipped, "round trip": CheckOK} {
		if st := stepOf(t, res, name); st.Status != want {
			t.Fatalf("%s: %s (%s), want %s", name, st.Status, st.Detail, want)
		}
	}
	if d := stepOf(t, res, "build").Detail; !strings.Contains(d, "not there: the first pane copies it") || !strings.Contains(d, " MB)") {
		t.Fatalf("the build step says %q", d)
	}
	if res.LatencyMS == nil || *res.LatencyMS <= 0 {
		t.Fatalf("no round trip: %+v", res)
	}
	if b := h.builds(); len(b) != 0 {
		t.Fatalf("the check copied a build: %v", b)
	}

	id := strings.TrimSpace(l.must("open-pane", "--host", "h1", "--", "sh", "-c", `PS1='$ ' exec sh`))
	l.must("send-keys", "-t", id, "echo re''ady<Enter>")
	l.shows(id, "ready")
	var hs []proto.HostInfo
	eventually(t, "hosts giving h1's latency", time.Minute, func() bool {
		hs = l.hosts()
		return len(hs) == 1 && hs[0].LatencyMS != nil
	})
	if *hs[0].LatencyMS <= 0 || *hs[0].LatencyMS > 10000 || len(hs[0].Panes) != 1 {
		t.Fatalf("hosts: %+v, latency %v ms", hs[0], *hs[0].LatencyMS)
	}
	table := l.must("hosts")
	if !strings.Contains(table, "LATENCY") || !strings.Contains(table, " ms ") || !strings.Contains(table, "1 ("+id+")") {
		t.Fatalf("hosts:\n%s", table)
	}
	before := h.hostSessions()

	res, ok = l.check("h1")
	if !ok || !res.OK {
		t.Fatalf("a host with the build failed the check: %+v", res)
	}
	if st := stepOf(t, res, "build"); !strings.Contains(st.Detail, "is there") {
		t.Fatalf("the build step says %q", st.Detail)
	}
	if st := stepOf(t, res, "session"); st.Status != CheckOK || !strings.Contains(st.Detail, "answered") {
		t.Fatalf("the session step: %+v", st)
	}
	if st := stepOf(t, res, "round trip"); st.Status != CheckOK || !strings.Contains(st.Detail, "pings over a pane's link") || res.LatencyMS == nil {
		t.Fatalf("the round trip step: %+v", st)
	}
	eventually(t, "the check's session ended", time.Minute, func() bool {
		return strings.Join(h.hostSessions(), " ") == strings.Join(before, " ")
	})

	// A build there whose server does not start: the session step runs it,
	// and fails saying what the host said.
	servers := h.builds()
	if len(servers) != 1 {
		t.Fatalf("builds on the host: %v", servers)
	}
	server := filepath.Join(servers[0], "melmux-server")
	good, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	swap := func(b []byte) {
		// Renamed into place: the pane's session runs the file there.
		if err := os.WriteFile(server+".new", b, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(server+".new", server); err != nil {
			t.Fatal(err)
		}
	}
	swap([]byte("#!/bin/sh\necho broken server >&2; exit 1\n"))
	res, ok = l.check("h1")
	swap(good)
	if ok || res.OK {
		t.Fatalf("a host whose build starts no session passed the check: %+v", res)
	}
	if st := stepOf(t, res, "session"); st.Status != CheckFailed || st.Fix == "" {
		t.Fatalf("the session step, with the host's server broken: %+v", st)
	}
	if st := stepOf(t, res, "round trip"); st.Status != CheckSkipped {
		t.Fatalf("the round trip step, with no session: %+v", st)
	}

	// Nothing listens on port 2299 of the host: ssh says so.
	cfg, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(strings.SplitN(string(cfg), "\nHost h1-sparc", 2)[0], "Host h1\n", "Host h1-off\n", 1)
	off = strings.Replace(off, "Port 2222", "Port 2299", 1)
	if err := os.WriteFile(h.config, append(cfg, []byte(off+"\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	res, ok = l.check("h1-off")
	if ok || res.OK {
		t.Fatalf("an unreachable host passed the check: %+v", res)
	}
	if st := stepOf(t, res, "ssh"); st.Status != CheckFailed || !strings.Contains(st.Detail, "Connection refused") || !strings.Contains(st.Fix, "true` work") {
		t.Fatalf("the ssh step of an unreachable host: %+v", st)
	}
	if st := stepOf(t, res, "session"); st.Status != CheckSkipped {
		t.Fatalf("the session step of an unreachable host: %+v", st)
	}
	out, _, _ := l.run("hosts", "--check", "h1-off")
	if !strings.Contains(out, "ssh         failed") || !strings.Contains(out, "to do:") {
		t.Fatalf("hosts --check h1-off:\n%s", out)
	}

	res, ok = l.check("h1-sparc")
	if ok || stepOf(t, res, "platform").Status != CheckFailed || !strings.Contains(stepOf(t, res, "platform").Fix, "GOARCH=sparc64") {
		t.Fatalf("a host of another platform: %+v", res)
	}

	h.must("ip", "link", "set", h.veth, "down")
	eventually(t, "hosts saying h1 is disconnected", time.Minute, func() bool { return l.hostState("h1") == proto.LinkDisconnected })
	if hs := l.hosts(); hs[0].LatencyMS != nil {
		t.Fatalf("a disconnected host has a latency: %v ms", *hs[0].LatencyMS)
	}
	if table := l.must("hosts"); !strings.Contains(table, "disconnected") || strings.Contains(table, " ms ") {
		t.Fatalf("hosts, disconnected:\n%s", table)
	}
}

// Reconnection tries use a short connect timeout, the first connection
// a longer one, and a host the user's ssh configuration gives a
// ConnectTimeout has it for both; the backoff stays within seconds while a link has been
// down for less than slowAfter, so that a network back is used soon.
func TestReconnectTiming(t *testing.T) {
	has := func(args []string, want string) bool {
		for _, a := range args {
			if a == want {
				return true
			}
		}
		return false
	}
	if a := sshArgs(nil, "h", "true", firstConnectTimeout); !has(a, "ConnectTimeout=15") {
		t.Fatalf("first: %q", a)
	}
	if a := sshArgs(nil, "h", "true", reconnectConnectTimeout); !has(a, "ConnectTimeout=5") {
		t.Fatalf("reconnect: %q", a)
	}
	// The user's own ConnectTimeout for a host is used for both.
	cfg := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(cfg, []byte("Host slow\n  ConnectTimeout 30\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ssh := []string{"ssh", "-F", cfg}
	l := &link{o: LinkOptions{Dest: "h", SSH: ssh}, session: "r-x", stream: "s"}
	if a := l.command(false).Args; !has(a, "ConnectTimeout=5") {
		t.Fatalf("a reconnection's ssh: %q", a)
	}
	if a := l.command(true).Args; !has(a, "ConnectTimeout=15") {
		t.Fatalf("a first connection's ssh: %q", a)
	}
	l.o.Dest = "slow:2200"
	if a, b := l.command(false).Args, l.command(true).Args; !has(a, "ConnectTimeout=30") || !has(b, "ConnectTimeout=30") {
		t.Fatalf("a host with its own ConnectTimeout: reconnection %q, first %q", a, b)
	}
	b, most := backoffMin, time.Duration(0)
	for range 20 {
		b = nextBackoff(b, time.Minute)
		most = max(most, b)
	}
	if most > 2*time.Second {
		t.Fatalf("a link down a minute waits up to %s between tries", most)
	}
	for range 20 {
		b = nextBackoff(b, time.Hour)
	}
	if b != backoffMax {
		t.Fatalf("a link down an hour waits %s between tries, want %s", b, backoffMax)
	}
}
