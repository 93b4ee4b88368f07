package agentverbs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/melmux/melmux/internal/client"
)

// The REPL of `melmux agent` in a terminal (normally a melmux pane). Line
// editing and history are x/term's Terminal; around it:
//   - stdin is read by a pump that never blocks, so Ctrl-C reaches us while
//     a turn runs (it cancels the leg in flight) and what is typed meanwhile
//     waits as typeahead for the next prompt;
//   - a message from the session (a lead's send_agent) interrupts a pending
//     ReadLine without losing what the person had typed: a private key
//     makes the line editor hand over and clear its line, which is typed
//     back once the turn is over;
//   - the last row is a footer (role, model, legs, tokens, state) kept out
//     of the way by a scroll region, laid out again on every resize.

const (
	keyCtrlC    = 0x03
	keyKillLine = 0x15 // Ctrl-U: what Ctrl-C does to the line being edited
	keyPreempt  = 0x1c // Ctrl-\, never passed on: our signal to the line editor
)

// inputQueue is stdin as the line editor reads it: bytes queue without
// bound until read, and we can inject keys of our own.
type inputQueue struct {
	mu     sync.Mutex // guards buf and closed
	cond   *sync.Cond
	buf    []byte
	closed bool
}

func newInputQueue() *inputQueue {
	q := &inputQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *inputQueue) Read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, q.buf)
	q.buf = q.buf[n:]
	return n, nil
}

func (q *inputQueue) put(b []byte) {
	q.add(b)
	q.cond.Broadcast()
}

// add is put's part under the lock (put runs at each read of stdin).
func (q *inputQueue) add(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.buf = append(q.buf, b...)
}

func (q *inputQueue) close() {
	locked(&q.mu, func() { q.closed = true })
	q.cond.Broadcast()
}

// pump copies stdin into q, turning each Ctrl-C into a kill-line key and a
// note on interrupts.
func pump(in io.Reader, q *inputQueue, interrupts chan<- struct{}) {
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		b := buf[:n]
		for i, c := range b {
			if c == keyCtrlC {
				b[i] = keyKillLine
				select {
				case interrupts <- struct{}{}:
				default:
				}
			}
		}
		if n > 0 {
			q.put(b)
		}
		if err != nil {
			q.close()
			return
		}
	}
}

// ttyOut serialises everything written to the terminal: the line editor's
// output, the streamed turn, the footer.
type ttyOut struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

// Write passes bytes as they are (the line editor writes CRLF itself).
func (t *ttyOut) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.w.Write(b)
}

// text is a writer for our own text: in raw mode a newline needs its CR.
type text struct{ t *ttyOut }

func (x text) Write(b []byte) (int, error) {
	_, err := x.t.Write([]byte(strings.ReplaceAll(string(b), "\n", "\r\n")))
	return len(b), err
}

// history drops blank lines and repeats, so Up never shows an empty entry.
type history struct{ entries []string }

func (h *history) Add(s string) {
	if strings.TrimSpace(s) == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == s) {
		return
	}
	h.entries = append(h.entries, s)
	if len(h.entries) > 1000 {
		h.entries = h.entries[1:]
	}
}
func (h *history) Len() int          { return len(h.entries) }
func (h *history) At(idx int) string { return h.entries[len(h.entries)-1-idx] }

type lineResult struct {
	line string
	err  error
}

// replState is the REPL's terminal side.
type replState struct {
	r   *agentRun
	fd  int
	out *ttyOut
	in  *inputQueue
	ed  *term.Terminal
	obs *lineObserver

	// mu guards rows, cols, state and line, and orders the footer's
	// drawing: the turn's goroutine draws it after each leg.
	mu    sync.Mutex
	rows  int    // the terminal's rows; 0 when too small for a footer
	cols  int    // its columns
	state string // the footer's last word: what the agent is doing
	line  string // the footer's text, as agentRun.footer last made it

	preemptMu sync.Mutex // guards preempted and saved
	preempted bool
	saved     string
}

func (r *agentRun) repl(ctx context.Context, stdin *os.File) error {
	fd := int(stdin.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return fmt.Errorf("agent: terminal: %w", err)
	}
	s := &replState{r: r, fd: fd, out: &ttyOut{w: r.g.Stdout}, in: newInputQueue()}
	interrupts := make(chan struct{}, 4)
	go pump(stdin, s.in, interrupts)
	s.ed = term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{s.in, s.out}, "\x1b[1m›\x1b[0m ")
	s.ed.History = &history{}
	s.ed.AutoCompleteCallback = s.onKey
	s.ed.SetBracketedPasteMode(true)
	s.obs = &lineObserver{w: text{s.out}, color: true, onLeg: func() { s.footer("") }, maxCalls: r.agent.CallLimit()}
	r.warn = text{s.out}
	s.line = r.footer(s.state)
	s.layout()
	defer func() {
		r.warn = nil
		s.ed.SetBracketedPasteMode(false)
		// Give the whole screen back and clear the footer.
		locked(&s.mu, func() { fmt.Fprintf(s.out, "\x1b7\x1b[r\x1b[%d;1H\x1b[2K\x1b8\r\n", s.rows) })
		term.Restore(fd, old)
	}()
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	ints := make(chan os.Signal, 1)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	go func() {
		for range ints {
			select {
			case interrupts <- struct{}{}:
			default:
			}
		}
	}()

	s.banner()
	first, err := r.firstTask(ctx)
	if err != nil {
		return err
	}
	return s.loop(ctx, interrupts, winch, first)
}

// banner says who this is and how to use it.
func (s *replState) banner() {
	r := s.r
	w := text{s.out}
	fmt.Fprintf(w, "\x1b[1mMel\x1b[0m %s agent %s · %s/%s\n", r.opts.role, r.id, r.settings.Provider, r.settings.Model)
	if r.restored != nil {
		fmt.Fprintf(w, "resumed: %d turns, %d legs so far", r.restored.Turns, r.restored.Legs)
		if len(r.restored.Repaired) > 0 {
			fmt.Fprintf(w, "; calls cut off by the last stop, not run again: %s", strings.Join(r.restored.Repaired, ", "))
		}
		fmt.Fprintln(w)
		if r.restored.LastReply != "" {
			fmt.Fprintf(w, "last reply: %s\n", cutColumns(r.restored.LastReply, max(s.cols-12, 20)))
		}
	}
	if r.opts.task != "" {
		fmt.Fprintf(w, "task: %s\n", client.Visible(r.opts.task))
	}
	fmt.Fprintln(w, "\x1b[2mEnter sends · Ctrl-C stops a turn · Ctrl-C twice or Ctrl-D at the prompt exits\x1b[0m")
}

// layout fits the REPL to the terminal, at the start and after every
// resize, with the prompt taken away (the REPL's text then ends at the
// cursor): the last row is the footer's, the rows above scroll. A resize
// leaves the old footer where the terminal put it: on the old last row,
// now anywhere below the cursor, or on the new last row with the cursor on
// it, where the prompt would be drawn over the footer and, outside the
// scroll region, every new line over the same row. So everything from the
// cursor down is erased (with no scroll region, which the resize may or
// may not have reset), the screen scrolled once if the cursor is on the
// last row, and the region and the footer set again, in one write so that
// a streaming turn's text never lands in between.
func (s *replState) layout() {
	cols, rows, err := term.GetSize(s.fd)
	small := err != nil || rows < 3 || cols < 10
	if small {
		s.ed.SetSize(max(cols, 40), max(rows, 1))
	} else {
		s.ed.SetSize(cols, rows-1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows, s.cols = rows, cols
	if small {
		s.rows, s.cols = 0, max(cols, 40)
	}
	s.obs.setWidth(s.cols)
	seq := "\x1b7\x1b[r\x1b8\x1b[J"
	if s.rows > 0 {
		seq += fmt.Sprintf("\n\x1b[A\x1b7\x1b[1;%dr\x1b8", s.rows-1) + s.footerLocked()
	}
	io.WriteString(s.out, seq)
}

// footer draws the footer saying state; "" keeps the state shown and
// brings the counters up to date (after a leg, on the turn's goroutine).
func (s *replState) footer(state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if state != "" {
		s.state = state
	}
	s.line = s.r.footer(s.state)
	io.WriteString(s.out, s.footerLocked())
}

// footerLocked is the footer's drawing at the current size, the cursor
// left where it was; "" when the terminal has no room for it. The text is
// the one made last: a resize during a turn must not read the counters
// the turn is changing.
func (s *replState) footerLocked() string {
	if s.rows == 0 {
		return ""
	}
	line := cutColumns(s.line, s.cols-2)
	return fmt.Sprintf("\x1b7\x1b[%d;1H\x1b[2K\x1b[7m %s%s\x1b[0m\x1b8", s.rows, line, strings.Repeat(" ", max(s.cols-2-len([]rune(line)), 0)))
}

// onKey sees every key the line editor does not handle itself; ours makes
// it hand over the line being edited and clear it.
func (s *replState) onKey(line string, pos int, key rune) (string, int, bool) {
	if key != keyPreempt {
		return "", 0, false
	}
	locked(&s.preemptMu, func() { s.preempted, s.saved = true, line })
	return "", 0, true
}

// takeSaved is the line the last preemption took from the prompt, leaving
// none.
func (s *replState) takeSaved() string {
	s.preemptMu.Lock()
	defer s.preemptMu.Unlock()
	saved := s.saved
	s.saved = ""
	return saved
}

// takePreempted reports whether our key ended the line just read (onKey
// saw it), clearing it.
func (s *replState) takePreempted() bool {
	s.preemptMu.Lock()
	defer s.preemptMu.Unlock()
	ours := s.preempted
	s.preempted = false
	return ours
}

// loop alternates between the prompt and turns until the person leaves.
func (s *replState) loop(ctx context.Context, interrupts chan struct{}, winch chan os.Signal, first *message) error {
	r := s.r
	lines := make(chan lineResult, 1)
	readLine := func() {
		go func() {
			l, err := s.ed.ReadLine()
			lines <- lineResult{l, err}
		}()
	}
	reading := false
	read := func() {
		if saved := s.takeSaved(); saved != "" {
			s.in.put([]byte(saved))
		}
		reading = true
		readLine()
	}
	// held are lines the editor ended while the prompt was being taken
	// away (the person pressed Enter just before): theirs, still to take.
	var held []lineResult
	// stopReading takes the prompt away (for a turn, a resize), keeping
	// its text for the next prompt.
	stopReading := func() {
		if !reading {
			return
		}
		reading = false
		s.in.put([]byte{keyPreempt, '\r'})
		for {
			lr := <-lines
			if s.takePreempted() {
				break
			}
			lr.line = strings.ReplaceAll(lr.line, string(rune(keyPreempt)), "")
			held = append(held, lr)
			if lr.err != nil {
				// The end of input (our keys are left unread), or a
				// paste, which took them as text: nothing more to stop.
				return
			}
			readLine() // to read our keys, behind the line it ended
		}
		io.WriteString(s.out, "\x1b[A\x1b[2K\r") // the emptied prompt line
	}
	next := make(chan message, 1)
	nextErr := make(chan error, 1)
	var cancelNext context.CancelFunc = func() {}
	listening := false
	listen := func() {
		if r.sess == nil || listening {
			return
		}
		listening = true
		nctx, cancel := context.WithCancel(ctx)
		cancelNext = cancel
		go func() {
			m, err := r.next(nctx)
			if err != nil {
				nextErr <- err
				return
			}
			next <- m
		}()
	}
	defer func() { cancelNext() }()
	var paste []string
	ctrlC := 0
	awaitingOwn := false // a line was posted; its message is on the way
	pending := first
	// take handles a line the person ended; true when they left.
	take := func(lr lineResult) bool {
		if lr.err != nil && !errors.Is(lr.err, term.ErrPasteIndicator) {
			return true // Ctrl-D or the end of input
		}
		if errors.Is(lr.err, term.ErrPasteIndicator) {
			paste = append(paste, lr.line)
			return false
		}
		msg := strings.TrimRight(strings.Join(append(paste, lr.line), "\n"), "\n")
		paste = nil
		ctrlC = 0
		if strings.TrimSpace(msg) == "" {
			return false
		}
		m, err := r.post(ctx, msg, "person")
		if err != nil {
			fmt.Fprintf(text{s.out}, "\x1b[31m✗ %v\x1b[0m\n", err)
			return false
		}
		if r.sess == nil {
			pending = &m
		} else {
			awaitingOwn = true
		}
		return false
	}
	for {
		if pending != nil {
			m := *pending
			pending = nil
			stopReading()
			s.runTurn(ctx, m, interrupts, winch)
			ctrlC = 0
			continue
		}
		if len(held) > 0 {
			lr := held[0]
			held = held[1:]
			if take(lr) {
				return nil
			}
			continue
		}
		state := r.restingState()
		r.report(state, r.turns, "", nil)
		s.footer(map[string]string{"waiting": "waiting for a message", "idle": "idle"}[state])
		listen()
		if !reading && !awaitingOwn {
			read()
		}
		select {
		case lr := <-lines:
			reading = false
			if take(lr) {
				return nil
			}
		case m := <-next:
			listening = false
			awaitingOwn = false
			r.turns = m.turn
			stopReading()
			if m.from != "person" {
				fmt.Fprintf(text{s.out}, "\x1b[36m» turn %d from %s:\x1b[0m %s\n", m.turn, fromWords(m.from), client.Visible(m.text))
			}
			pending = &m
		case err := <-nextErr:
			listening = false
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("agent: the session went away: %w", err)
		case <-interrupts:
			ctrlC++
			if ctrlC >= 2 {
				return nil
			}
			s.ed.Write([]byte("(Ctrl-C again to exit; Ctrl-C during a turn stops it)\n"))
		case <-winch:
			// The prompt goes and comes back, its text kept: what is
			// below it is erased and the footer drawn at the new size.
			stopReading()
			s.layout()
		case <-ctx.Done():
			return nil
		}
	}
}

// fromWords names where a message came from, for the pane's reader.
func fromWords(from string) string {
	switch from {
	case "task":
		return "the task"
	case "", "send_agent":
		return "send_agent"
	}
	return from
}

// runTurn runs one message, Ctrl-C cancelling it.
func (s *replState) runTurn(ctx context.Context, m message, interrupts chan struct{}, winch chan os.Signal) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.footer(fmt.Sprintf("working on turn %d", m.turn))
	done := make(chan error, 1)
	go func() {
		_, err := s.r.turn(tctx, m, s.obs)
		done <- err
	}()
	for {
		select {
		case err := <-done:
			s.obs.end()
			if err != nil {
				fmt.Fprintf(text{s.out}, "\x1b[31m✗ %v\x1b[0m\n", err)
			}
			return
		case <-interrupts:
			s.obs.end()
			io.WriteString(text{s.out}, "\x1b[33m^C stopping the turn\x1b[0m\n")
			cancel()
		case <-winch:
			s.layout()
		}
	}
}
