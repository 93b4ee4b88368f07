package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// CheckStep is one line of `melmux hosts --check`: what was tested, how
// it went, and what to do when it failed.
type CheckStep struct {
	Name   string `json:"name"`
	Status string `json:"status"` // CheckOK, CheckFailed or CheckSkipped
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Check statuses.
const (
	CheckOK      = "ok"
	CheckFailed  = "failed"
	CheckSkipped = "skipped" // an earlier step's outcome leaves nothing to test
)

// CheckResult is all of a check.
type CheckResult struct {
	Host      string      `json:"host"`
	OK        bool        `json:"ok"`
	Steps     []CheckStep `json:"steps"`
	LatencyMS *float64    `json:"latency_ms"` // the round trip, null when it was not measured
}

// checkPings is how many round trips the check's figure is the median of.
const checkPings = 5

// Check tests dest as a first pane there would use it, without opening a
// pane or copying anything: ssh reaches it (ssh's own words when not),
// its platform has a build, this build is there or would be copied, the
// data directory it goes into is writable, a melmux session starts there
// and answers over a bridge as a pane's would, and the round trip over
// that channel. each is told every step as it ends.
func Check(ctx context.Context, ssh []string, dest string, bins Binaries, each func(CheckStep)) CheckResult {
	if len(ssh) == 0 {
		ssh = []string{"ssh"}
	}
	res := CheckResult{Host: dest, OK: true, Steps: []CheckStep{}}
	add := func(st CheckStep) {
		if st.Status == CheckFailed {
			res.OK = false
		}
		res.Steps = append(res.Steps, st)
		if each != nil {
			each(st)
		}
	}
	skip := func(why string, names ...string) {
		for _, n := range names {
			add(CheckStep{Name: n, Status: CheckSkipped, Detail: why})
		}
	}

	// One connection says it all: the platform, the builds there (and
	// which of their binaries can run), and whether the data directory
	// takes a file.
	probe := `uname -s; uname -m; ` + hostPrelude("") +
		`for b in "$d"*; do [ -d "$b" ] || continue; l="build ${b##*/}"; ` +
		`for f in melmux melmux-server melmux-agent; do [ -x "$b/$f" ] && l="$l $f"; done; echo "$l"; done; ` +
		`if e=$( { mkdir -p "$d" && : > "$d.check-$$" && rm -f "$d.check-$$"; } 2>&1 ); then echo "writable ${d%/}"; ` +
		`else echo "unwritable ${d%/}: $e" | tr '\n' ' '; echo; fi`
	start := time.Now()
	out, err := runSSH(ctx, ssh, dest, probe, nil)
	if err != nil {
		add(CheckStep{Name: "ssh", Status: CheckFailed, Detail: err.Error(),
			Fix: fmt.Sprintf("melmux runs `%s %s` as you would: make `%s %s true` work from this shell without a question (the address, a key in ssh-agent, the host key in known_hosts: connect once by hand)",
				strings.Join(ssh, " "), dest, strings.Join(ssh, " "), dest)})
		skip("ssh did not reach the host", "platform", "build", "data dir", "session", "round trip")
		return res
	}
	add(CheckStep{Name: "ssh", Status: CheckOK, Detail: fmt.Sprintf("reached %s in %.1f s", dest, time.Since(start).Seconds())})

	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		add(CheckStep{Name: "platform", Status: CheckFailed, Detail: fmt.Sprintf("uname said %q", out),
			Fix: "the host needs a POSIX shell with uname"})
		skip("the platform is not known", "build", "data dir", "session", "round trip")
		return res
	}
	sys, machine := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
	goos, goarch := goPlatform(sys, machine)
	files := bins.files(goos, goarch)
	if files == nil {
		dist := bins.Dist
		if dist == "" {
			dist = "$XDG_DATA_HOME/melmux/dist"
		}
		add(CheckStep{Name: "platform", Status: CheckFailed,
			Detail: fmt.Sprintf("%s %s (%s/%s): this melmux is built for %s/%s and has no build for it", sys, machine, goos, goarch, runtime.GOOS, runtime.GOARCH),
			Fix:    fmt.Sprintf("build it for the host with `GOOS=%s GOARCH=%s CGO_ENABLED=0 go build -o %s/%s-%s/ ./cmd/...`, or install melmux there", goos, goarch, dist, goos, goarch)})
		skip("no build fits the host", "build", "data dir", "session", "round trip")
		return res
	}
	add(CheckStep{Name: "platform", Status: CheckOK, Detail: fmt.Sprintf("%s %s (%s/%s): this melmux has a build for it", sys, machine, goos, goarch)})

	id, err := buildID(files)
	if err != nil {
		add(CheckStep{Name: "build", Status: CheckFailed, Detail: err.Error(), Fix: "this melmux's binaries must be readable"})
		skip("this build is not known", "data dir", "session", "round trip")
		return res
	}
	there, writable := false, ""
	for _, l := range lines[2:] {
		l = strings.TrimSpace(l)
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "build" && f[1] == id {
			there = true
			for _, n := range names(files) {
				there = there && slices.Contains(f[2:], n)
			}
		}
		if strings.HasPrefix(l, "writable ") || strings.HasPrefix(l, "unwritable ") {
			writable = l
		}
	}
	if there {
		add(CheckStep{Name: "build", Status: CheckOK, Detail: fmt.Sprintf("this build (%s) is there", id)})
	} else {
		var size int64
		for _, p := range files {
			if fi, err := os.Stat(p); err == nil {
				size += fi.Size()
			}
		}
		add(CheckStep{Name: "build", Status: CheckOK,
			Detail: fmt.Sprintf("this build (%s) is not there: the first pane copies it (%d files, %.1f MB)", id, len(files), float64(size)/1e6)})
	}
	switch {
	case strings.HasPrefix(writable, "writable "):
		add(CheckStep{Name: "data dir", Status: CheckOK, Detail: strings.TrimPrefix(writable, "writable ") + " is writable"})
	default:
		detail := strings.TrimPrefix(writable, "unwritable ")
		if detail == "" {
			detail = "the host did not say"
		}
		add(CheckStep{Name: "data dir", Status: CheckFailed, Detail: detail + " is not writable",
			Fix: "melmux keeps its build in ${XDG_DATA_HOME:-~/.local/share}/melmux/bin on the host: make it writable by you there, or set XDG_DATA_HOME for ssh sessions (sshd's SetEnv or your shell's profile)"})
	}
	if !there {
		skip("this build is not on the host yet: the first pane copies it, then starts a session", "session")
		rtt, err := catRoundTrip(ctx, ssh, dest)
		if err != nil {
			add(CheckStep{Name: "round trip", Status: CheckFailed, Detail: err.Error(), Fix: "ssh reached the host once but not again: see ssh's words"})
			return res
		}
		ms := float64(rtt.Microseconds()) / 1000
		res.LatencyMS = &ms
		add(CheckStep{Name: "round trip", Status: CheckOK, Detail: fmt.Sprintf("%.1f ms (the median of %d, over ssh to a cat on the host: a pane's link adds the session's work)", ms, checkPings)})
		return res
	}

	rtt, detail, err := bridgeCheck(ctx, ssh, dest, hostPrelude(id))
	if err != nil {
		add(CheckStep{Name: "session", Status: CheckFailed, Detail: err.Error(),
			Fix: fmt.Sprintf("the host's melmux did not serve a session: read the log the host named, or run `%s %s '\"${XDG_DATA_HOME:-$HOME/.local/share}/melmux/bin/%s/melmux\" new -d -s try -- true'` to see what it says", strings.Join(ssh, " "), dest, id)})
		skip("no session answered", "round trip")
		return res
	}
	add(CheckStep{Name: "session", Status: CheckOK, Detail: detail})
	ms := float64(rtt.Microseconds()) / 1000
	res.LatencyMS = &ms
	add(CheckStep{Name: "round trip", Status: CheckOK, Detail: fmt.Sprintf("%.1f ms (the median of %d pings over a pane's link)", ms, checkPings)})
	return res
}

// bridgeCheck does what a pane's first connection does, with a program
// that does nothing: a session of its own started on the host, reached by
// `melmux __bridge` over ssh; it pings over that channel as a live link
// does, then ends the session. The program ends by itself in two minutes
// should the check be cut short before it ends the session.
func bridgeCheck(ctx context.Context, ssh []string, dest, prelude string) (time.Duration, string, error) {
	stream := randomID()
	session := "r-" + stream[:12]
	args := []string{"__bridge", "--stream", stream, "--from", "-1", "--new", "-x", "80", "-y", "24", session, "--", "sleep", "120"}
	cmd := exec.CommandContext(ctx, ssh[0], sshArgs(ssh[1:], dest, hostCommand(prelude, args), connectTimeout(ctx, ssh, dest, true))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, "", err
	}
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, "", fmt.Errorf("run %s: %w", ssh[0], err)
	}
	defer func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	why := func(err error) error {
		if msg := stderr.String(); msg != "" {
			return fmt.Errorf("%v: %s", err, msg)
		}
		return err
	}
	frames := make(chan frameIn, 16)
	go readFrames(bufio.NewReaderSize(stdout, 64<<10), frames)
	fw := &frameWriter{w: stdin}
	next := func(wait time.Duration) (frameIn, error) {
		select {
		case f := <-frames:
			if f.err != nil {
				if errors.Is(f.err, io.EOF) {
					return f, why(errors.New("the host's melmux ended the channel"))
				}
				return f, why(f.err)
			}
			return f, nil
		case <-time.After(wait):
			return frameIn{}, why(fmt.Errorf("no answer within %s", wait))
		case <-ctx.Done():
			return frameIn{}, ctx.Err()
		}
	}
	f, err := next(helloWait)
	if err != nil {
		return 0, "", err
	}
	var h hello
	switch f.typ {
	case frameHello:
		if err := json.Unmarshal(f.p, &h); err != nil {
			return 0, "", fmt.Errorf("the bridge said hello badly: %v", err)
		}
	case frameError:
		return 0, "", decodeFailure(f.p)
	default:
		return 0, "", fmt.Errorf("the bridge did not say hello (frame %q)", f.typ)
	}
	// The session is ended whatever comes next.
	defer func() { _ = fw.write(frameKill, nil) }()
	epoch := time.Now()
	var rtts []time.Duration
	for len(rtts) < checkPings {
		if err := fw.write(frameRTT, withOffset(int64(time.Since(epoch)), nil)); err != nil {
			return 0, "", why(fmt.Errorf("writing to ssh: %v", err))
		}
		for {
			f, err := next(deadAfter)
			if err != nil {
				return 0, "", fmt.Errorf("a ping: %w", err)
			}
			if f.typ == frameError {
				return 0, "", decodeFailure(f.p)
			}
			if f.typ != frameRTT {
				continue // the pane's output, the bridge's own pings
			}
			if at, _, err := splitOffset(f.p); err == nil {
				rtts = append(rtts, time.Since(epoch)-time.Duration(at))
			}
			break
		}
	}
	slices.Sort(rtts)
	return rtts[len(rtts)/2], fmt.Sprintf("a melmux session started on the host (%s) and answered; it was ended", h.Session), nil
}

// catRoundTrip is the round trip over ssh to a cat on the host: what can
// be measured where melmux's build is not there yet.
func catRoundTrip(ctx context.Context, ssh []string, dest string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, ssh[0], sshArgs(ssh[1:], dest, "sh -c "+shQuote("exec cat"), connectTimeout(ctx, ssh, dest, true))...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("run %s: %w", ssh[0], err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	r := bufio.NewReader(stdout)
	var rtts []time.Duration
	for i := 0; i <= checkPings; i++ {
		t := time.Now()
		if _, err := fmt.Fprintf(stdin, "ping %d\n", i); err != nil {
			return 0, fmt.Errorf("ssh %s: %v %s", dest, err, stderr.String())
		}
		if _, err := r.ReadString('\n'); err != nil {
			return 0, fmt.Errorf("ssh %s: %v %s", dest, err, stderr.String())
		}
		if i > 0 { // the first waits for the connection and the shell
			rtts = append(rtts, time.Since(t))
		}
	}
	slices.Sort(rtts)
	return rtts[len(rtts)/2], nil
}
