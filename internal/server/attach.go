package server

import (
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
)

// frameInterval caps redraws at 60 a second per client.
const frameInterval = time.Second / 60

// client is one attached terminal. Its loop goroutine owns input, the tcell
// screen and the ui.Input state; other goroutines only signal dirty or quit.
type client struct {
	s       *Server
	conn    net.Conn
	wmu     sync.Mutex // guards writes to conn (frames from tcell and OSC 52, the exit frame)
	tty     clientTty
	screen  tcell.Screen
	painter ui.Painter // draws screen's frames; the loop's alone
	input   *ui.Input
	// keysFrom is the config the input's keys are from (reload.go);
	// the loop's alone.
	keysFrom *liveConfig

	dirty     chan struct{} // capacity one: a redraw is wanted
	urgent    chan struct{} // capacity one: the pane typed into answered; draw now
	typedPane atomic.Int64  // pane the last typed bytes went to
	typedAt   atomic.Int64  // when (UnixNano); 0 once its answer was drawn
	quit      chan string   // capacity one: leave with this reason
	quitOnce  sync.Once

	scene *ui.Scene // owned by the loop goroutine: the scene last drawn

	msgMu   sync.Mutex // guards message, msgEnd, output, diff, chooser and notes (runLine, showDiff and chooseSession report from their own goroutines)
	message string
	msgEnd  time.Time
	output  string           // a verb's output from the prompt, for the loop to show (takeOutput)
	diff    []ui.DiffLine    // a worktree's diff, for the loop to show (takeOutput)
	notes   []byte           // bells and OSC 9 notifications for the terminal, after the next frame (addNote)
	chooser []ui.ChooserItem // the sessions for the session chooser, for the loop to show (takeChooser)
}

// invalidate asks every attached client for a redraw. It never blocks and
// takes no lock: pane readers call it for every chunk of output.
func (s *Server) invalidate() {
	s.web.note()
	for _, c := range s.clients.walk() {
		c.invalidate()
	}
}

// invalidateLocked is invalidate for a change of the layout or of a pane's
// agent, which the state file saves too.
func (s *Server) invalidateLocked() {
	s.stateChanged()
	s.invalidate()
}

// paneOutput is invalidate for output of pane id: a client that typed into
// that pane within the last 250 ms draws at once, past its frame cap.
func (s *Server) paneOutput(id int) {
	s.stateOutput()
	s.quiet.note()
	s.web.note()
	for _, c := range s.clients.walk() {
		if at := c.typedAt.Load(); at != 0 && c.typedPane.Load() == int64(id) && time.Since(time.Unix(0, at)) < 250*time.Millisecond {
			select {
			case c.urgent <- struct{}{}:
			default:
			}
			continue
		}
		c.invalidate()
	}
}

func (c *client) invalidate() {
	select {
	case c.dirty <- struct{}{}:
	default:
	}
}

// failed sends the client away after a panic on one of its goroutines,
// letting go of its terminal first (see readFrames).
func (c *client) failed(err error) {
	c.tty.Close()
	c.exit("client failed: " + err.Error())
}

// exit tells the client why it must leave; the loop restores its terminal.
func (c *client) exit(reason string) {
	c.quitOnce.Do(func() { c.quit <- reason })
	// A loop stuck writing to a stalled client must notice soon.
	c.tty.setLimit(time.Second)
	_ = c.conn.SetWriteDeadline(time.Now().Add(time.Second))
}

// resizeToClientsLocked makes the session the size of its smallest client,
// as tmux does, and re-lays the panes.
//
// Clients join and leave under their own lock (clients.go), and each then
// calls this under Server.mu: it reads the clients as published last, so
// the last call is for the clients attached now. Once the session is
// ending its panes are being closed: nothing is laid out.
func (s *Server) resizeToClientsLocked() {
	clients := s.clients.walk()
	if len(clients) == 0 || s.shutdown {
		return
	}
	s.sizeByResize = false
	cols, rows := 0, 0
	for _, c := range clients {
		w, h := c.tty.size()
		if cols == 0 || w < cols {
			cols = w
		}
		if rows == 0 || h < rows {
			rows = h
		}
	}
	cols = min(max(cols, proto.MinSessionCols), proto.MaxSessionCols)
	rows = min(max(rows, proto.MinSessionRows), proto.MaxSessionRows)
	if cols != s.cols || rows != s.rows {
		s.cols, s.rows = cols, rows
		s.relayoutLocked()
	}
}

func (s *Server) serveAttach(conn net.Conn, lr *proto.LineReader, hello proto.Hello) {
	fail := func(format string, args ...any) {
		_ = proto.WriteJSON(conn, proto.Welcome{Version: proto.Version, Error: errorf(proto.CodeFailed, format, args...)})
	}
	if hello.Cols < 1 || hello.Rows < 1 {
		fail("attach: the terminal size %dx%d is not usable", hello.Cols, hello.Rows)
		return
	}
	// Each client costs memory in proportion to its screen: refuse one over
	// the cap before anything is allocated for it.
	if full, ok := s.clients.reserve(); !ok {
		fail("attach: session %q already has %d clients attached, the most it takes (max_clients in config.toml)", s.name, full)
		return
	}
	joined := false
	defer func() {
		if !joined {
			s.clients.unreserve()
		}
	}()
	termName := hello.Term
	if termName == "" || termName == "dumb" {
		termName = "xterm-256color"
	}
	ti, err := terminfo.LookupTerminfo(termName)
	if err != nil {
		s.log.Warn("unknown client TERM, using xterm-256color", "term", termName, "err", err)
		ti, err = terminfo.LookupTerminfo("xterm-256color")
		if err != nil {
			fail("attach: no terminfo for %q: %v", termName, err)
			return
		}
	}
	// Each screen gets its own copy: tcell writes to the terminfo it is
	// given (XTermLike and the like), and the looked-up one is shared.
	copyTI := *ti
	ti = &copyTI
	if ct := strings.ToLower(hello.ColorTerm); (ct == "truecolor" || ct == "24bit") && ti.SetFgRGB == "" {
		// The client said it has 24-bit colour though its terminfo does not;
		// believe it, as tcell does with $COLORTERM for a local terminal.
		ti.SetFgRGB = "\x1b[38;2;%p1%d;%p2%d;%p3%dm"
		ti.SetBgRGB = "\x1b[48;2;%p1%d;%p2%d;%p3%dm"
		ti.SetFgBgRGB = "\x1b[38;2;%p1%d;%p2%d;%p3%d;48;2;%p4%d;%p5%d;%p6%dm"
	}
	input, keysFrom := s.newInput()
	input.SetPromptSupport(s.promptSupport())
	c := &client{s: s, conn: conn, input: input, keysFrom: keysFrom, dirty: make(chan struct{}, 1), urgent: make(chan struct{}, 1), quit: make(chan string, 1)}
	// The handover message must be read from the connection itself: were
	// anything buffered past the hello, it would be out of step. A client
	// offering its terminal sends nothing until it is welcomed.
	uc, handover := conn.(*net.UnixConn)
	handover = handover && hello.Tty
	if n := lr.Buffered(); handover && n > 0 {
		fail("attach: the hello offering the terminal was followed by more bytes (%d) before the welcome; a client offering its terminal sends nothing until it is welcomed", n)
		return
	}
	if err := proto.WriteJSON(conn, proto.Welcome{Version: proto.Version, Session: s.name, Tty: handover}); err != nil {
		return
	}
	if handover {
		tty, err := c.takeTerminal(uc, hello)
		if err != nil {
			s.log.Warn("attach: terminal handover", "err", err)
			_ = proto.WriteFrame(conn, proto.FrameExit, []byte("attach: "+err.Error()))
			return
		}
		if tty != nil {
			c.tty = tty
		}
	}
	if c.tty == nil {
		c.tty = newConnTty(conn, &c.wmu, hello.Cols, hello.Rows)
	}
	c.tty.setLimit(s.tune.slowClient)
	// Lets go of a terminal handed over, whichever way this ends.
	defer c.tty.Close()
	// tcell draws what the session will show once this client is in (the
	// smallest client's size; this one's when it is the first), so its
	// buffer is never allocated at a larger size.
	s.withLock(func() {
		if s.clients.count() > 0 {
			c.tty.fit(s.cols, s.rows)
		}
	})
	screen, err := tcell.NewTerminfoScreenFromTtyTerminfo(c.tty, ti)
	if err == nil {
		err = screen.Init()
	}
	if err != nil {
		s.log.Error("attach: screen", "err", err)
		_ = proto.WriteFrame(conn, proto.FrameExit, []byte("cannot draw on this terminal: "+err.Error()))
		return
	}
	c.screen = screen
	screen.EnableMouse()
	screen.EnablePaste()

	if joined = s.clients.join(c); !joined {
		screen.Fini()
		_ = proto.WriteFrame(conn, proto.FrameExit, []byte("server exited"))
		return
	}
	s.withLock(s.resizeToClientsLocked)
	_, direct := c.tty.(*termTty)
	s.log.Info("client attached", "term", termName, "cols", hello.Cols, "rows", hello.Rows, "terminal_handed_over", direct)

	if p := s.cfg().problem; p != "" {
		c.say("%s", p)
	}
	go c.readFrames(lr)
	// A frame reader holding typing back is woken by Fini (Drain).
	reason := c.loop()

	s.clients.leave(c)
	s.withLock(s.resizeToClientsLocked)
	screen.Fini()
	c.sendExit(reason)
	s.log.Info("client left", "reason", reason)
}

// slowGrace is how long a client dropped for being slow has to read again
// and learn why, before its connection is closed.
const slowGrace = time.Minute

// sendExit tells the client why it leaves. A client dropped for being slow
// is sent the rest of the frame it was cut off in, then a reset of its
// terminal (the screen's own restore could not reach it) and the reason,
// with slowGrace to take them: a terminal that stalled and comes back says
// why it was detached instead of seeing the connection vanish.
//
// A client that handed its terminal over is sent the same over the
// connection, which it still reads: the server has let go of the terminal,
// and the client writes them to it.
func (c *client) sendExit(reason string) {
	unsent, failed := c.tty.cutShort()
	if _, proxy := c.tty.(*connTty); proxy && failed != nil && !errors.Is(failed, ErrSlowClient) {
		return // the connection is broken: nothing more goes through
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var out []byte
	if errors.Is(failed, ErrSlowClient) {
		out = append(out, unsent...)
		if f, err := proto.Frame(proto.FrameOutput, []byte(proto.ResetModes)); err == nil {
			out = append(out, f...)
		}
		_ = c.conn.SetWriteDeadline(time.Now().Add(slowGrace))
		sent := make(chan struct{})
		defer close(sent)
		go func() {
			select {
			case <-c.s.done: // the session ends: the connection must not hold it up
				_ = c.conn.SetWriteDeadline(time.Now())
			case <-sent:
			}
		}()
	}
	if f, err := proto.Frame(proto.FrameExit, []byte(reason)); err == nil {
		out = append(out, f...)
	}
	_, _ = c.conn.Write(out)
}

// readFrames turns the client's frames into tcell input and resizes. The
// line reader may hold bytes read past the hello, so frames are read through it.
func (c *client) readFrames(lr *proto.LineReader) {
	// The client is gone: a terminal it handed over is let go of at once,
	// as the user's shell has it now.
	defer c.tty.Close()
	defer c.s.recovered("client input", c.failed)
	buf := make([]byte, 32<<10)
	r := lr.Reader()
	proxy, _ := c.tty.(*connTty)
	for {
		typ, payload, err := proto.ReadFrame(r, buf)
		if err != nil {
			// Let go of the terminal before the loop hears of it: told
			// first, it could finish the screen (Fini), drawing the restore
			// on a terminal the user's shell has again.
			c.tty.Close()
			c.exit("client gone")
			return
		}
		switch typ {
		case proto.FrameInput:
			if proxy == nil {
				continue // a client that handed its terminal over types through it
			}
			c.typed()
			c.holdTyping()
			if err := proxy.feed(payload); err != nil {
				c.exit("client gone")
				return
			}
		case proto.FrameResize:
			cols, rows, err := proto.ParseResize(payload)
			if err != nil || cols < 1 || rows < 1 {
				continue
			}
			c.tty.setSize(cols, rows)
			c.s.withLock(c.s.resizeToClientsLocked)
			c.invalidate()
		}
	}
}

// typed starts what a piece of the client's input starts, as soon as it is
// read: the hold for its echo (package sched), most likely for the pane
// typed into last (the loop says which once the input is parsed), and the
// feed slot kept from the floods while a person types.
func (c *client) typed() {
	c.s.sched.Input(int(c.typedPane.Load()))
}

// takeTerminal reads the handover message of a client whose terminal the
// welcome took: the terminal's tty, or nil when the client kept it after
// all (it is a proxy client then).
func (c *client) takeTerminal(conn *net.UnixConn, hello proto.Hello) (*termTty, error) {
	in, out, err := readHandover(conn)
	if errors.Is(err, errNoHandover) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t, err := newTermTty(in, out, hello.Cols, hello.Rows)
	if err != nil {
		return nil, err
	}
	t.hold, t.typed = c.holdTyping, c.typed
	return t, nil
}

// eventQueue is what tcell's screens have beside tcell.Screen: the queue
// PollEvent reads, and the channel closed when the screen is finished.
type eventQueue interface {
	EventQ() chan tcell.Event
	StopQ() <-chan struct{}
}

// events is where the loop takes the screen's events from, and a channel
// closed once no more will come. The loop reads tcell's own queue, as
// PollEvent does: a goroutine between them was one more thread wake-up on
// every key's way to its pane.
func (c *client) events() (<-chan tcell.Event, <-chan struct{}, error) {
	q, ok := c.screen.(eventQueue)
	if !ok {
		return nil, nil, fmt.Errorf("the screen (%T) has no event queue", c.screen)
	}
	return q.EventQ(), q.StopQ(), nil
}

// loop is the client's one goroutine: events in, frames out, at most 60 a
// second and only when something changed. A panic here ends this client only.
func (c *client) loop() (reason string) {
	defer func() {
		if r := recover(); r != nil {
			c.s.log.Error("client panic", "panic", r, "stack", string(debug.Stack()))
			reason = fmt.Sprintf("client failed: %v", r)
		}
	}()
	events, stopped, err := c.events()
	if err != nil {
		return "client failed: " + err.Error()
	}
	pending, urgent := true, false
	var last time.Time
	timer := time.NewTimer(0)
	defer timer.Stop()
	// settle fires when a busy pane's border should turn idle.
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	for {
		select {
		case r := <-c.quit:
			return r
		case <-c.s.done:
			// The reason the session ended, given before it did, wins.
			select {
			case r := <-c.quit:
				return r
			default:
			}
			return "server exited"
		case <-stopped:
			return "client gone"
		case ev := <-events:
			c.rebind()
			switch ev := ev.(type) {
			case *tcell.EventResize:
				c.screen.Sync()
			case *tcell.EventError:
				// The terminal cannot be read (a terminal handed over that
				// hung up, or let go of as the client left): nothing more
				// can be typed here. The reason given first wins.
				select {
				case r := <-c.quit:
					return r
				default:
				}
				return "terminal gone: " + ev.Error()
			}
			onlySend := false
			if c.scene != nil {
				acts := c.input.Handle(ev, c.scene)
				onlySend = len(acts) > 0
				for _, a := range acts {
					if _, ok := a.(ui.SendBytes); !ok {
						onlySend = false
					}
					c.do(a)
				}
			}
			if !onlySend {
				pending = true
				c.s.sched.Answered() // no pane will answer this input
			}
		case <-c.dirty:
			pending = true
		case <-c.urgent:
			pending, urgent = true, true
		case <-settle.C:
			pending = true
		case <-timer.C:
		}
		if !pending {
			continue
		}
		if wait := frameInterval - time.Since(last); wait > 0 && !urgent {
			timer.Reset(wait)
			continue
		}
		if wait := c.s.sched.KeyHeld(); wait > 0 && !urgent {
			// A key awaits its echo: a frame begun now would hold the echo
			// back for as long as it takes to draw.
			timer.Reset(wait)
			continue
		}
		drewEcho := urgent
		if urgent {
			c.typedAt.Store(0)
		}
		pending, urgent = false, false
		last = time.Now()
		fresh := 0
		if drewEcho {
			fresh = int(c.typedPane.Load())
		}
		next, stale := c.draw(fresh)
		if next > 0 {
			settle.Reset(next + time.Millisecond)
		}
		if drewEcho {
			c.s.sched.Answered() // the answer is out: the other panes go on
		}
		if stale {
			// The echo's frame showed the other panes as they were drawn
			// last; the next frame, at the cap, shows them as they are.
			pending = true
			timer.Reset(frameInterval)
		}
		if err := c.tty.writeErr(); errors.Is(err, ErrSlowClient) {
			return "detached: too slow to keep up"
		} else if err != nil {
			return "client dropped: " + err.Error()
		}
	}
}

// draw renders one frame, with only pane fresh's screen taken anew when it
// is not 0 (see sceneFresh), and returns when the scene changes by itself
// next and whether a pane has more to show than was drawn. The panes'
// readers wait while it draws (sched.BeginFrame).
func (c *client) draw(fresh int) (next time.Duration, stale bool) {
	c.s.sched.BeginFrame()
	defer c.s.sched.EndFrame()
	c.rebind()
	sc, next, stale := c.s.sceneFresh(c, fresh)
	c.tty.fit(sc.Cols, sc.Rows)
	c.takeOutput(sc)
	c.takeChooser()
	next = c.showAgents(sc, next)
	if m := c.shownMessage(); m != "" {
		sc.Message = m
	}
	c.input.Decorate(sc)
	if d := c.input.Wakeup(); d > 0 && (next == 0 || d < next) {
		next = d // the pane numbers go away by themselves
	}
	c.scene = sc
	c.painter.Draw(c.screen, sc)
	c.flushNotes()
	return next, stale
}

// shownMessage is the message say left, while its time lasts; "" after.
func (c *client) shownMessage() string {
	c.msgMu.Lock()
	defer c.msgMu.Unlock()
	if c.message != "" && time.Now().Before(c.msgEnd) {
		return c.message
	}
	return ""
}

func (c *client) say(format string, args ...any) {
	locked(&c.msgMu, func() {
		c.message = fmt.Sprintf(format, args...)
		c.msgEnd = time.Now().Add(3 * time.Second)
	})
	// Make sure the message goes away when its time is up.
	time.AfterFunc(3*time.Second+frameInterval, c.invalidate)
}

// do executes one action of this client's input.
func (c *client) do(a ui.Action) {
	s := c.s
	switch a := a.(type) {
	case ui.SendBytes:
		if e, err := s.lookup(a.Pane); err == nil {
			c.typedPane.Store(int64(a.Pane))
			c.typedAt.Store(time.Now().UnixNano())
			s.sched.KeyTo(a.Pane)
			if err := e.p.Type(a.Bytes); err != nil {
				c.say("pane %d: %v", a.Pane, err)
			}
		}
		// The pane's answer asks for the frame; typing alone changes nothing drawn.
		return
	case ui.Command:
		if err := s.uiCommand(c, a); err != nil {
			c.say("%s: %v", a.Name, err)
		}
	case ui.RunLine:
		go c.runLine(a.Args)
	case ui.FocusPane:
		s.withLock(func() { s.refocusLocked(func() { _ = s.layout.Focus(a.Pane) }) })
	case ui.SelectTab:
		s.withLock(func() { _ = s.layout.SelectTab(a.Index) })
	case ui.EnterCopy:
		c.enterCopy(a)
	case ui.ExitCopy:
	case ui.Copy:
		s.withLock(func() { s.buffer = a.Text })
		// Best effort: the terminal may not support OSC 52.
		_, _ = c.tty.Write(ui.OSC52(a.Text))
		c.say("copied %d bytes", len(a.Text))
	case ui.DragBorder:
		s.dragBorder(a)
	case ui.AnswerQuestion:
		go c.answerQuestion(a)
	case ui.Redraw:
	}
	s.stateChanged() // a tab or the focus may have changed
	s.invalidate()
}

// enterCopy freezes the pane's history and screen for this client's copy mode.
func (c *client) enterCopy(a ui.EnterCopy) {
	e, err := c.s.lookup(a.Pane)
	if err != nil {
		return
	}
	src, snap := copySource(e.p.Term())
	a.Start(c.input, src, snap.Cols, snap.Rows, snap.Cursor.X, snap.Cursor.Y)
}
