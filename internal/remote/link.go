package remote

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// Timing of the link. A host's bridge pings at least every streamWaitMS,
// so a link that carried nothing for deadAfter is taken for dropped (a
// dropped network does not end a TCP connection for minutes), and a new
// one is tried after a backoff that doubles from backoffMin up to
// backoffFast, so that a network back is used within seconds; a link down
// for slowAfter (a host gone, a laptop away) is tried less often, up to
// backoffMax apart.
var (
	deadAfter   = 6 * time.Second
	helloWait   = 45 * time.Second
	backoffMin  = 500 * time.Millisecond
	backoffFast = 2 * time.Second
	backoffMax  = 15 * time.Second
	slowAfter   = 5 * time.Minute
)

// nextBackoff is the wait after b, for a link down for down.
func nextBackoff(b, down time.Duration) time.Duration {
	if down < slowAfter {
		return min(b*2, backoffFast)
	}
	return min(b*2, backoffMax)
}

// The link's round trip: a ping every rttEvery over the live channel, and
// the median of the last rttKeep is its figure (`melmux hosts`), so that
// one ping queued behind a burst of output does not make the link look slow.
var rttEvery = 2 * time.Second

const rttKeep = 5

// inputLimit bounds the typing held for the host while it is not taken:
// past it the pane's terminal holds the rest, as a kernel holds typing a
// program does not read.
const inputLimit = 1 << 20

// LinkOptions say what runs where, and how this side reports.
type LinkOptions struct {
	Dest string   // as ssh takes it; host:port is split for ssh
	SSH  []string // the ssh command (default: ssh)
	Argv []string // the program on the host; none runs the host user's shell
	Cwd  string   // its directory on the host (default: the home directory)
	Bins Binaries // this melmux's binaries, copied to a host without them

	// The local session and pane the link reports to (remote_link); an
	// empty Sock reports nothing.
	Sock string
	Pane int

	In  *os.File  // the pane's terminal: typing, and its size
	Out io.Writer // the pane's terminal: the host pane's output

	// Agent, when set, says Argv is a worker agent's arguments to the
	// host's melmux, and its control connections are the local session's
	// (forward.go).
	Agent *AgentLink

	// Stream names the typing stream and the host's session (r-…, its
	// first 12 characters); none picks one. The local session gives it,
	// so that a pane it restores after dying (its saved command line
	// holds it) links to the session still running on the host instead of
	// starting the program anew.
	Stream string
}

// AgentLink is what a worker agent on the host is given of this side: the
// environment that must not be on a command line (its task, the
// provider's key), and the local session's name. Its pane is Pane.
type AgentLink struct {
	Env     []string
	Session string
}

// Link mirrors a pane on o.Dest into o.In/o.Out until its program ends,
// which it returns, or ctx ends (the local pane is closing: the host's
// session is ended too). A first link that cannot be made is an error; a
// link that drops after is made again, forever.
func Link(ctx context.Context, o LinkOptions) (*proto.RemoteExit, error) {
	if len(o.SSH) == 0 {
		o.SSH = []string{"ssh"}
	}
	if len(o.Stream) < 12 {
		o.Stream = randomID()
	}
	l := &link{o: o, from: -1, epoch: time.Now(), stream: o.Stream, in: make(chan struct{}, 1), resized: make(chan struct{}, 1),
		fgCh: make(chan struct{}, 1), query: make(chan struct{}, 1)}
	if o.Agent != nil {
		// The worker's connections outlive each ssh channel (forward.go).
		l.rel = newRelay(func() (net.Conn, error) { return net.Dial("unix", o.Sock) })
		defer l.rel.close()
	}
	go l.tellForeground()
	// The local session asks what the host's program uses (melmux top)
	// with SIGUSR1: a question for the host, asked only while someone
	// looks.
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	go func() {
		for range usr1 {
			poke(l.query)
		}
	}()
	if fd := int(o.In.Fd()); term.IsTerminal(fd) {
		if old, err := term.MakeRaw(fd); err == nil {
			defer term.Restore(fd, old) //nolint:errcheck // best effort at exit
		}
	}
	go l.readInput()
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	go func() {
		for range winch {
			poke(l.resized)
		}
	}()

	l.report(proto.LinkConnecting, "")
	dir, err := Ensure(ctx, o.SSH, o.Dest, o.Bins)
	if err != nil {
		l.report(proto.LinkFailed, err.Error())
		return nil, err
	}
	l.dir = dir
	l.session = "r-" + l.stream[:12]
	backoff := backoffMin
	connected := false
	var downSince time.Time
	for {
		start := time.Now()
		exit, up, err := l.once(ctx, !connected)
		if exit != nil || ctx.Err() != nil {
			return exit, nil
		}
		var f failure
		if errors.As(err, &f) && f.Gone || !connected && !up {
			l.report(proto.LinkFailed, err.Error())
			return nil, err
		}
		if up {
			connected = true
			downSince = time.Now()
			// A link that held starts its backoff over; one that drops
			// as soon as it is made does not make it spin.
			if time.Since(start) > backoffMax {
				backoff = backoffMin
			}
		}
		l.report(proto.LinkDisconnected, fmt.Sprintf("%v; next try in %s", err, backoff.Round(time.Millisecond)))
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return nil, nil
		}
		backoff = nextBackoff(backoff, time.Since(downSince))
	}
}

// link is one mirror's state across its connections.
type link struct {
	o       LinkOptions
	dir     string // the host's melmux directory, a shell word
	session string
	stream  string
	rel     *relay // a worker's control connections; nil for other programs

	mu   sync.Mutex // guards met, from, buf, base, sent and more
	met  bool       // a host answered once
	from int64      // the output offset drawn so far; -1 before the first
	// typing not yet taken by the host: buf starts at byte base of the
	// stream, and sent is how far this connection sent it.
	buf  []byte
	base int64
	sent int64
	more chan struct{} // closed when buf shrinks

	in      chan struct{} // capacity one: typing arrived
	resized chan struct{} // capacity one: the pane was resized
	query   chan struct{} // capacity one: the local session asks what the pane uses

	// What the host says the pane runs, and what it uses, the latest not
	// yet told to the local server: told by a goroutine of its own, so
	// that a slow local server never holds up the host's output.
	fgMu      sync.Mutex // guards fgNext, usageNext and rttNext
	fgNext    *proto.RemoteForeground
	usageNext *proto.RemoteUsage
	rttNext   *float64
	fgCh      chan struct{} // capacity one

	// Pings' round trips on this connection, read and written by once's
	// loop only; the figure last told; the clock a ping carries.
	rtts    []time.Duration
	rttTold float64
	epoch   time.Time
}

// poke does a non-blocking send on a capacity-one channel.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// readInput keeps what is typed into the pane until the host took it.
func (l *link) readInput() {
	b := make([]byte, 32<<10)
	for {
		for more := l.inputFull(); more != nil; more = l.inputFull() {
			<-more
		}
		n, err := l.o.In.Read(b)
		if n > 0 {
			locked(&l.mu, func() { l.buf = append(l.buf, b[:n]...) })
			poke(l.in)
		}
		if err != nil {
			return
		}
	}
}

// inputFull gives, while the typing held reaches inputLimit, a channel
// closed when the host took some; nil when there is room.
func (l *link) inputFull() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) < inputLimit {
		return nil
	}
	if l.more == nil {
		l.more = make(chan struct{})
	}
	return l.more
}

// acked drops the typing the host took.
func (l *link) acked(received int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := received - l.base; n > 0 && n <= int64(len(l.buf)) {
		l.buf = append(l.buf[:0], l.buf[n:]...)
		l.base = received
		if l.more != nil {
			close(l.more)
			l.more = nil
		}
	}
	l.sent = max(l.sent, received)
}

// report tells the local server the link's state; best effort.
func (l *link) report(state, why string) {
	if l.o.Sock == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = client.Once(ctx, l.o.Sock, "remote_link", proto.RemoteLinkParams{Pane: l.o.Pane, Host: l.o.Dest, State: state, Error: why, Session: l.session}, nil)
}

// tellForeground tells the local server what the host's pane runs and
// what it uses, the latest each time; best effort, as report.
func (l *link) tellForeground() {
	for range l.fgCh {
		var fg *proto.RemoteForeground
		var use *proto.RemoteUsage
		var rtt *float64
		locked(&l.fgMu, func() {
			fg, use, rtt = l.fgNext, l.usageNext, l.rttNext
			l.fgNext, l.usageNext, l.rttNext = nil, nil, nil
		})
		if fg == nil && use == nil && rtt == nil || l.o.Sock == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := client.Once(ctx, l.o.Sock, "remote_link", proto.RemoteLinkParams{Pane: l.o.Pane, Host: l.o.Dest,
			Foreground: fg, Usage: use, RTTMS: rtt}, nil)
		cancel()
		if err != nil {
			// Told again with the next news: what the pane runs must not
			// wait for it to change again.
			locked(&l.fgMu, func() {
				if l.fgNext == nil {
					l.fgNext = fg
				}
			})
		}
	}
}

// size is the pane's size, from its terminal.
func (l *link) size() (int, int) {
	ws, err := unix.IoctlGetWinsize(int(l.o.In.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 || ws.Row == 0 {
		return 80, 24
	}
	return int(ws.Col), int(ws.Row)
}

// command is ssh running the host's bridge: a first connection starts the
// host's session, a next one links to it from the offset drawn so far.
func (l *link) command(first bool) *exec.Cmd {
	cols, rows := l.size()
	args := []string{"__bridge", "--stream", l.stream, "--from", strconv.FormatInt(l.fromNow(), 10)}
	if l.o.Agent != nil {
		args = append(args, "--agent")
	}
	if first {
		args = append(args, "--new", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
		if l.o.Cwd != "" {
			args = append(args, "--cwd", l.o.Cwd)
		}
	}
	args = append(args, l.session)
	if first && len(l.o.Argv) > 0 {
		args = append(append(args, "--"), l.o.Argv...)
	}
	timeout := connectTimeout(context.Background(), l.o.SSH, l.o.Dest, first)
	cmd := exec.Command(l.o.SSH[0], sshArgs(l.o.SSH[1:], l.o.Dest, hostCommand(l.dir, args), timeout)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the pane's hangup is ours to tell the host
	return cmd
}

// once makes one connection and serves it until it ends. up says the host
// answered (the link was made); exit is set when the program ended.
func (l *link) once(ctx context.Context, first bool) (exit *proto.RemoteExit, up bool, err error) {
	cmd := l.command(first)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, false, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("run %s: %w", l.o.SSH[0], err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	// However it ends, ssh is gone once this returns: a next connection
	// never races an old one.
	defer func() {
		_ = stdin.Close()
		select {
		case <-waited:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			<-waited
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
	if first && l.o.Agent != nil {
		b, _ := json.Marshal(agentSetup{Env: l.o.Agent.Env, Pane: l.o.Pane, Session: l.o.Agent.Session})
		if err := fw.write(frameSetup, b); err != nil {
			return nil, false, why(fmt.Errorf("ssh %s: %v", l.o.Dest, err))
		}
	}
	var h hello
	select {
	case f := <-frames:
		if f.err != nil {
			return nil, false, why(fmt.Errorf("ssh %s", l.o.Dest))
		}
		switch f.typ {
		case frameHello:
			if err := json.Unmarshal(f.p, &h); err != nil {
				return nil, false, fmt.Errorf("the bridge on %s said hello badly: %v", l.o.Dest, err)
			}
		case frameError:
			return nil, false, decodeFailure(f.p)
		default:
			return nil, false, fmt.Errorf("the bridge on %s did not say hello (frame %q)", l.o.Dest, f.typ)
		}
	case <-time.After(helloWait):
		_ = cmd.Process.Kill()
		return nil, false, why(fmt.Errorf("ssh %s: no answer within %s", l.o.Dest, helloWait))
	case <-ctx.Done():
		return nil, false, nil
	}
	locked(&l.mu, func() {
		if !l.met {
			// The host's count of the stream is where this process's
			// typing starts: a restored pane's predecessor typed the rest.
			l.met, l.base = true, h.Received
		}
		l.sent = h.Received // what did not reach the host goes again
	})
	l.acked(h.Received)
	l.rtts, l.rttTold = l.rtts[:0], 0 // the session forgets the last connection's figure
	l.report(proto.LinkConnected, "")
	poke(l.in)
	poke(l.resized)

	var rch *relChannel
	if l.rel != nil {
		rch = l.rel.attach(fw)
		defer l.rel.detach(rch)
	}
	sendErr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() { sendErr <- l.send(fw, stop) }()
	dead := time.NewTimer(deadAfter)
	defer dead.Stop()
	for {
		select {
		case f := <-frames:
			if f.err != nil {
				return nil, true, why(errors.New("the link ended"))
			}
			dead.Reset(deadAfter)
			switch f.typ {
			case frameOutput, frameRepaint:
				next, data, err := splitOffset(f.p)
				if err != nil {
					return nil, true, err
				}
				if _, err := l.o.Out.Write(data); err != nil {
					return nil, true, err
				}
				locked(&l.mu, func() { l.from = next })
			case frameAck:
				received, _, err := splitOffset(f.p)
				if err != nil {
					return nil, true, err
				}
				l.acked(received)
			case frameExit:
				var x proto.RemoteExit
				_ = json.Unmarshal(f.p, &x)
				_ = fw.write(frameKill, nil) // the session ends with its pane
				return &x, true, nil
			case frameError:
				return nil, true, decodeFailure(f.p)
			case frameResume, frameMsg, frameMsgAck:
				if l.rel != nil {
					relayFrame(l.rel, rch, f.typ, f.p)
				}
			case frameRTT:
				if at, _, err := splitOffset(f.p); err == nil {
					l.tookRTT(time.Since(l.epoch) - time.Duration(at))
				}
			case frameFore:
				var fg proto.RemoteForeground
				if json.Unmarshal(f.p, &fg) == nil {
					locked(&l.fgMu, func() { l.fgNext = &fg })
					poke(l.fgCh)
				}
			case frameUsage:
				var use proto.RemoteUsage
				if json.Unmarshal(f.p, &use) == nil {
					locked(&l.fgMu, func() { l.usageNext = &use })
					poke(l.fgCh)
				}
			}
		case err := <-sendErr:
			return nil, true, why(fmt.Errorf("writing to ssh: %v", err))
		case <-dead.C:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			return nil, true, fmt.Errorf("nothing from %s for %s", l.o.Dest, deadAfter)
		case <-ctx.Done():
			if l.localAlive() {
				_ = fw.write(frameKill, nil)
			}
			return nil, true, nil
		}
	}
}

// localAlive says the local session still answers as this pane closes: it
// closed the pane (kill-pane, kill-server), and the host's session ends
// with it. A session that died outright (kill -9, a crash) hung up on the
// pane as its process went, its socket refusing or its listener closing
// on a connection not yet accepted: the host's session keeps running, and
// the session restored from its state links to it again. The session
// gives a pane it closes a second before killing it, so the answer must
// come sooner; a session too slow to answer is taken for alive.
func (l *link) localAlive() bool {
	if l.o.Sock == "" {
		return true
	}
	c, err := client.DialTimeout(l.o.Sock, 700*time.Millisecond)
	if err != nil {
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}
	_ = c.Close()
	return true
}

// fromNow is the output offset to ask for.
func (l *link) fromNow() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.from
}

// tookRTT keeps a ping's round trip, and has the link's figure told to
// the local session when it moved by a fifth (and a tenth of a
// millisecond) from the one told: not every ping costs it a call.
func (l *link) tookRTT(d time.Duration) {
	if d < 0 {
		return
	}
	l.rtts = append(l.rtts, d)
	if len(l.rtts) > rttKeep {
		l.rtts = l.rtts[1:]
	}
	s := slices.Clone(l.rtts)
	slices.Sort(s)
	ms := max(float64(s[len(s)/2].Microseconds())/1000, 0.001)
	if l.rttTold > 0 && math.Abs(ms-l.rttTold) < max(0.1, l.rttTold/5) {
		return
	}
	l.rttTold = ms
	locked(&l.fgMu, func() { l.rttNext = &ms })
	poke(l.fgCh)
}

// ping sends the clock for the host to send back (frameRTT).
func (l *link) ping(fw *frameWriter) error {
	return fw.write(frameRTT, withOffset(int64(time.Since(l.epoch)), nil))
}

// send writes typing not sent yet, resizes and pings, until stop or an
// error.
func (l *link) send(fw *frameWriter, stop <-chan struct{}) error {
	if err := l.ping(fw); err != nil {
		return err
	}
	tick := time.NewTicker(rttEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
			if err := l.ping(fw); err != nil {
				return err
			}
		case <-l.resized:
			cols, rows := l.size()
			if err := fw.write(frameResize, proto.ResizePayload(cols, rows)); err != nil {
				return err
			}
		case <-l.query:
			if err := fw.write(frameQuery, nil); err != nil {
				return err
			}
		case <-l.in:
			for {
				at, chunk := l.nextInput()
				if len(chunk) == 0 {
					break
				}
				if err := fw.write(frameInput, withOffset(at, chunk)); err != nil {
					return err
				}
			}
		}
	}
}

// nextInput takes the next piece of typing to send, at its offset in the
// stream; none when the host was sent all.
func (l *link) nextInput() (at int64, chunk []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	from := l.sent - l.base
	if from >= 0 && from < int64(len(l.buf)) {
		chunk = append([]byte(nil), l.buf[from:min(int64(len(l.buf)), from+32<<10)]...)
	}
	at = l.sent
	l.sent += int64(len(chunk))
	return at, chunk
}

// frameIn is one frame read, or the error that ended the reading.
type frameIn struct {
	typ byte
	p   []byte
	err error
}

func readFrames(r io.Reader, out chan<- frameIn) {
	for {
		typ, p, err := proto.ReadFrame(r, nil)
		out <- frameIn{typ: typ, p: p, err: err}
		if err != nil {
			return
		}
	}
}

func decodeFailure(p []byte) error {
	var f failure
	if json.Unmarshal(p, &f) != nil || f.Message == "" {
		return errors.New("the bridge failed: " + string(p))
	}
	return f
}

// randomID names a typing stream and the host's session.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// tail keeps the end of ssh's stderr: why it failed.
type tail struct {
	mu sync.Mutex // guards b: ssh writes it while a failure reads it
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(trimSpace(t.b))
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
