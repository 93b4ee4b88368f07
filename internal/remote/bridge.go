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
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// BridgeOptions say which session of this host the bridge serves.
type BridgeOptions struct {
	Session string
	Sock    string // the session's socket
	// New starts the session first (it must not run yet), with Argv in Cwd
	// at Cols x Rows for the pane (the session is two rows taller: its
	// status line and the pane's border).
	New        bool
	Argv       []string
	Cwd        string
	Cols, Rows int
	Self       string // this melmux, which starts the session
	// From is the offset of the output wanted first; -1 asks for a repaint.
	From int64
	// Stream names the local side's typing stream.
	Stream string
	env    []string // for the session, from the worker's setup
	// Agent says the program is a worker agent of the local session: its
	// control connections are carried to it (forward.go), and with New the
	// local side's first frame is its agentSetup.
	Agent bool
}

// paneExtra is how much taller a session is than its one pane.
const paneExtra = 2

// streamWaitMS is how long one pane_stream waits for output: the bridge
// sends a ping after each wait that found none, which is how the local side
// knows the link is alive.
const streamWaitMS = 1000

// Bridge serves the local side's frames on in and out (the ssh channel)
// until it closes the channel, asks for the session's end, or the pane is
// gone. An error it returns was sent as a frame too, when it could be.
func Bridge(o BridgeOptions, in io.Reader, out io.Writer) error {
	fw := &frameWriter{w: out}
	fail := func(f failure) error {
		b, _ := json.Marshal(f)
		_ = fw.write(frameError, b) // best effort: the link may be what failed
		return f
	}
	if o.Agent && o.New {
		if err := o.setUpAgent(in); err != nil {
			return fail(failure{Message: err.Error()})
		}
	}
	if o.New && !running(o.Sock) {
		// A session already running is a restored local pane's, whose
		// predecessor started it: the bridge links to it as it is.
		if err := startSession(o); err != nil {
			return fail(failure{Message: err.Error()})
		}
	}
	c, err := client.Dial(o.Sock)
	if err != nil {
		return fail(failure{Message: fmt.Sprintf("session %s on this host: %v", o.Session, err), Gone: errors.Is(err, client.ErrNoServer)})
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id, err := onlyPane(ctx, c)
	if err != nil {
		return fail(failure{Message: fmt.Sprintf("session %s on this host: %v", o.Session, err), Gone: true})
	}
	var took proto.PaneInputResult
	if err := c.Call(ctx, "pane_input", proto.PaneInputParams{Pane: id, Stream: o.Stream}, &took); err != nil {
		return fail(failure{Message: err.Error()})
	}
	h := hello{Session: o.Session, Pane: id, Received: took.Received, Cols: o.Cols, Rows: o.Rows}
	hb, _ := json.Marshal(h)
	if err := fw.write(frameHello, hb); err != nil {
		return err
	}
	var rel *bridgeRelay
	if o.Agent {
		// After the hello: the local side reads nothing before it.
		rel = &bridgeRelay{sock: RelaySocket(o.Session), fw: fw}
		go rel.run(ctx)
	}
	outDone := make(chan error, 1)
	go func() { outDone <- streamOut(ctx, c, fw, id, o.From) }()
	inDone := make(chan error, 1)
	go func() { inDone <- takeIn(ctx, c, fw, rel, id, o.Stream, in) }()
	select {
	case err := <-inDone:
		return err // the channel closed (the link, or the local side, went) or kill
	case err := <-outDone:
		if err != nil {
			return fail(failureOf(c, err))
		}
		// The program ended: the local side reads the exit and asks for
		// the session's end (or goes).
		return <-inDone
	}
}

// failureOf says why a call on the session failed: a session that ended,
// or a pane that is gone, is gone for good.
func failureOf(c *client.Client, err error) failure {
	select {
	case <-c.Done():
		return failure{Message: "the session on this host ended", Gone: true}
	default:
	}
	var pe *proto.Error
	if errors.As(err, &pe) && pe.Code == proto.CodeNoSuchPane {
		return failure{Message: pe.Message, Gone: true}
	}
	return failure{Message: err.Error()}
}

// setUpAgent reads the worker's agentSetup, the local side's first frame,
// straight from in (unbuffered: the frames after it are takeIn's), and
// makes the program this melmux's worker, under `melmux __worker`, which
// carries its connections to the local session (forward.go). The pane's
// own MELMUX_ variables, which the host's session sets, are overridden on
// the command line (they hold no secret); the task and the key go in the
// session's environment.
func (o *BridgeOptions) setUpAgent(in io.Reader) error {
	typ, p, err := proto.ReadFrame(in, nil)
	if err != nil {
		return fmt.Errorf("the worker's setup: %v", err)
	}
	var s agentSetup
	if typ != frameSetup || json.Unmarshal(p, &s) != nil {
		return fmt.Errorf("the worker's setup: frame %q is not one", typ)
	}
	o.env = s.Env
	o.Argv = append([]string{o.Self, "__worker", o.Session, "--", "env", "MELMUX_SOCKET=" + ForwardSocket(o.Session),
		"MELMUX_PANE=" + strconv.Itoa(s.Pane), "MELMUX_SESSION=" + s.Session, o.Self}, o.Argv...)
	return nil
}

// startSession starts the session with its pane, as `melmux new -d` does.
func startSession(o BridgeOptions) error {
	args := []string{"new", "-s", o.Session, "-d", "-x", strconv.Itoa(o.Cols), "-y", strconv.Itoa(o.Rows + paneExtra), "--"}
	cmd := exec.Command(o.Self, append(args, o.Argv...)...)
	if len(o.env) > 0 {
		cmd.Env = append(os.Environ(), o.env...)
	}
	cmd.Dir = o.Cwd
	if cmd.Dir == "" {
		cmd.Dir, _ = os.UserHomeDir()
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("start session %s: %v: %s", o.Session, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// running says a session answers on sock.
func running(sock string) bool {
	c, err := client.Connect(sock, time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// onlyPane is the session's pane: a bridged session has one.
func onlyPane(ctx context.Context, c *client.Client) (int, error) {
	var panes []proto.PaneInfo
	if err := c.Call(ctx, "list_panes", nil, &panes); err != nil {
		return 0, err
	}
	if len(panes) == 0 {
		return 0, errors.New("it has no pane")
	}
	sort.Slice(panes, func(i, j int) bool { return panes[i].ID < panes[j].ID })
	return panes[0].ID, nil
}

// streamOut sends the pane's output from offset from, a ping whenever a
// wait found none, and the exit once every byte went. It returns nil after
// the exit.
func streamOut(ctx context.Context, c *client.Client, fw *frameWriter, id int, from int64) error {
	var fg proto.RemoteForeground
	told := false
	for {
		var r proto.PaneStreamResult
		if err := c.Call(ctx, "pane_stream", proto.PaneStreamParams{Pane: id, From: from, WaitMS: streamWaitMS}, &r); err != nil {
			return err
		}
		if r.Foreground != nil && (!told || *r.Foreground != fg) {
			fg, told = *r.Foreground, true
			b, _ := json.Marshal(fg)
			if err := fw.write(frameFore, b); err != nil {
				return nil
			}
		}
		switch {
		case len(r.Data) > 0 || r.Repaint:
			typ := frameOutput
			if r.Repaint {
				typ = frameRepaint
			}
			if err := fw.write(typ, withOffset(r.Next, r.Data)); err != nil {
				return nil // the channel is gone: takeIn sees it too
			}
			from = r.Next
		case r.Exited != nil:
			b, _ := json.Marshal(r.Exited)
			_ = fw.write(frameExit, b)
			return nil
		default:
			if err := fw.write(framePing, nil); err != nil {
				return nil
			}
		}
	}
}

// takeIn types what the local side sends, acknowledging each frame, and
// resizes, and passes the relay's frames on to the worker's parent; it
// returns when the channel closes or the session is killed.
func takeIn(ctx context.Context, c *client.Client, fw *frameWriter, rel *bridgeRelay, id int, stream string, in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	var size string
	var measuring atomic.Bool // a frameQuery is being answered: another one is not needed
	for {
		typ, p, err := proto.ReadFrame(r, buf)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		buf = p[:0]
		switch typ {
		case frameInput:
			at, data, err := splitOffset(p)
			if err != nil {
				return err
			}
			var took proto.PaneInputResult
			if err := c.Call(ctx, "pane_input", proto.PaneInputParams{Pane: id, Stream: stream, At: at, Data: data}, &took); err != nil {
				return err
			}
			if err := fw.write(frameAck, withOffset(took.Received, nil)); err != nil {
				return err
			}
		case frameResize:
			cols, rows, err := proto.ParseResize(p)
			if err != nil {
				return err
			}
			if s := fmt.Sprint(cols, rows); s != size {
				size = s
				// Best effort: a size out of the session's range keeps the last one.
				_ = c.Call(ctx, "resize", proto.ResizeParams{Cols: cols, Rows: rows + paneExtra}, nil)
			}
		case frameRTT:
			if err := fw.write(frameRTT, p); err != nil {
				return err
			}
		case frameKill:
			_ = c.Call(ctx, "kill_server", proto.KillServerParams{}, nil)
			return nil
		case frameQuery:
			if measuring.CompareAndSwap(false, true) {
				go func() {
					defer measuring.Store(false)
					sendUsage(ctx, c, fw, id)
				}()
			}
		case frameResume, frameMsg, frameMsgAck:
			if rel != nil {
				rel.fromLocal(typ, p)
			}
		}
	}
}

// sendUsage answers a frameQuery with what the pane's process tree uses,
// as this host's session reads it (list_panes with resources): the local
// session's `top` shows the program's figures, not its mirror's. A session
// that cannot say sends nothing; the local side shows none.
func sendUsage(ctx context.Context, c *client.Client, fw *frameWriter, id int) {
	var panes []proto.PaneInfo
	if err := c.Call(ctx, "list_panes", proto.ListPanesParams{Resources: true}, &panes); err != nil {
		return
	}
	for _, p := range panes {
		if p.ID == id && p.CPU != nil && p.RSS != nil {
			b, _ := json.Marshal(proto.RemoteUsage{CPU: *p.CPU, RSS: *p.RSS})
			_ = fw.write(frameUsage, b) // the channel's end is takeIn's to see
			return
		}
	}
}
