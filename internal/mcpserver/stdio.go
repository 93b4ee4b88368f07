package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/melmux/melmux/toolexec"
)

// What `melmux mcp` holds of its input at once; docs/cli.md ("MCP") lists
// these, and what a huge line cost without them. The SDK's stdio transport
// and the check in front of it copied a line several times over, and lines
// sent together were every one read and decoded at once.
const (
	// MaxLineBytes bounds one message from the client: room for the largest
	// arguments a tool accepts (toolexec.MaxArgumentsBytes, three times
	// write_file's 32 MiB content, for its escaping) and the rest of the
	// message.
	MaxLineBytes = toolexec.MaxArgumentsBytes + MaxEnvelopeBytes
	// MaxEnvelopeBytes bounds a message less the arguments of a tools/call:
	// the rest (initialize, notifications, a call's name and _meta) is a few
	// hundred bytes, so only the arguments may be large, and only they are
	// kept out of the SDK, which would copy them three more times.
	MaxEnvelopeBytes = 64 << 10
	// MaxPendingBytes bounds the input held at once: the whole line of every
	// call not yet answered and the line being read. One line at the limit
	// fits with small calls (pane tools, cancellations) beside it; a second
	// large line is read only as far as the bound allows and waits there for
	// the calls before it to be answered.
	MaxPendingBytes = MaxLineBytes + 4<<20
	// MaxCallsInFlight bounds the calls not yet answered; the next line is
	// read when one is.
	MaxCallsInFlight = 64
)

// limits are the bounds a conn keeps; tests shrink them.
type limits struct {
	line, envelope, pending, calls int
}

var defaultLimits = limits{MaxLineBytes, MaxEnvelopeBytes, MaxPendingBytes, MaxCallsInFlight}

// exitGrace is how long Serve waits, once the client has gone (or ctx has
// ended), for the calls in flight to return: their contexts are cancelled
// then, and each tool stops or is abandoned within toolexec's own grace.
const exitGrace = 10 * time.Second

// Serve runs srv on stdin and stdout until the client goes away (stdin
// reaches EOF) or ctx ends. Either way the input ends, which makes the SDK
// cancel the contexts of the calls in flight (as the client's
// notifications/cancelled does for one call); Serve then waits for them at
// most exitGrace.
func Serve(ctx context.Context, srv *mcp.Server, stdin io.Reader, stdout io.Writer) error {
	return serve(ctx, srv, newConn(stdin, stdout, defaultLimits))
}

func serve(ctx context.Context, srv *mcp.Server, c *conn) error {
	go c.readLoop()
	runDone := make(chan error, 1)
	go func() {
		runDone <- srv.Run(context.Background(), transport{c})
	}()
	select {
	case err := <-runDone:
		return err
	case <-c.inputDone:
	case <-ctx.Done():
		c.Close()
	}
	grace := time.NewTimer(exitGrace)
	defer grace.Stop()
	select {
	case err := <-runDone:
		return err
	case <-grace.C:
		return fmt.Errorf("mcp: calls still running %s after the input ended were abandoned", exitGrace)
	}
}

// transport hands the SDK its one connection.
type transport struct{ c *conn }

func (t transport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// conn is the SDK's connection over stdin and stdout, in place of its stdio
// transport, which reads ahead without bound, hands every message to a
// goroutine at once and ends the session at the first line that is not a
// JSON-RPC message. Here a goroutine reads one line at a time, as far as
// the limits allow: a bad line is answered with a JSON-RPC error (-32700 for
// text that is not JSON or a line over the limit, -32600 for JSON that is
// not a message) and the session goes on; a good one reaches the SDK without
// the arguments of a tools/call, which travel beside it to the handler.
type conn struct {
	lim limits
	in  *bufio.Reader
	out *lockedWriter

	msgs      chan jsonrpc.Message // from readLoop to Read; closed when it ends
	readErr   error                // why readLoop ended, if not EOF; set before msgs closes
	inputDone chan struct{}        // closed when readLoop ends
	quit      chan struct{}        // closed by Close: no more input
	quitOnce  sync.Once
	freed     chan struct{} // a call was answered (one pending signal at most)

	mu       sync.Mutex         // guards what follows
	calls    map[jsonrpc.ID]int // each call not yet answered, and its line's bytes
	inFlight int                // the sum of calls
	reading  int                // bytes held of the line being read
	peak     int                // the most inFlight+reading has been
	onWait   func()             // for tests: readLoop is about to wait for room
}

func newConn(in io.Reader, out io.Writer, lim limits) *conn {
	return &conn{
		lim:       lim,
		in:        bufio.NewReaderSize(in, 64<<10),
		out:       &lockedWriter{w: out},
		msgs:      make(chan jsonrpc.Message),
		inputDone: make(chan struct{}),
		quit:      make(chan struct{}),
		freed:     make(chan struct{}, 1),
		calls:     map[jsonrpc.ID]int{},
	}
}

// Read returns the next message, io.EOF once the input has ended.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-c.msgs:
		if !ok {
			if c.readErr != nil {
				return nil, c.readErr
			}
			return nil, io.EOF
		}
		return msg, nil
	case <-c.quit:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write writes one message as a line. A response ends its call, which
// makes room for the next: that is done first, since the client may reuse
// the id as soon as it reads the response.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.release(resp.ID)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp: encoding a message: %w", err)
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// Close ends the input (the SDK reads EOF); responses are still written.
func (c *conn) Close() error {
	c.quitOnce.Do(func() { close(c.quit) })
	return nil
}

func (c *conn) SessionID() string { return "" }

// errQuit stops readLoop once Close has been called.
var errQuit = errors.New("input closed")

// readLoop reads line after line until EOF, a read error or Close, waiting
// for a call to be answered before it reads past MaxCallsInFlight calls or
// holds more than MaxPendingBytes.
func (c *conn) readLoop() {
	defer close(c.inputDone)
	defer close(c.msgs)
	for {
		if !c.wait(func() bool { return len(c.calls) < c.lim.calls }) {
			return
		}
		line, tooLong, err := c.readLine()
		if err == errQuit {
			return
		}
		if len(line) > 0 || tooLong {
			msg, answer := c.decode(line, tooLong)
			c.readingNone()
			if answer != nil {
				if _, werr := c.out.Write(answer); werr != nil {
					c.readErr = werr
					return
				}
			} else if msg != nil {
				select {
				case c.msgs <- msg:
				case <-c.quit:
					return
				}
			}
		}
		if err != nil {
			if err != io.EOF {
				c.readErr = err
			}
			return
		}
	}
}

// readLine reads one line without its newline and surrounding space. Its
// bytes are copied out of the reader's buffer as they come, each part only
// once there is room for it (hold); a line over the limit is dropped as soon
// as it goes over and the rest of it discarded as it is read (tooLong).
func (c *conn) readLine() (line []byte, tooLong bool, err error) {
	var parts [][]byte
	n := 0
	for {
		chunk, err := c.in.ReadSlice('\n')
		if !tooLong {
			if n+len(chunk) > c.lim.line+1 { // +1: the newline
				parts = nil
				collect(n)
				tooLong, n = true, 0
				c.readingNone()
			} else if len(chunk) > 0 {
				if !c.hold(n + len(chunk)) {
					return nil, false, errQuit
				}
				parts = append(parts, bytes.Clone(chunk))
				n += len(chunk)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(join(parts, n)), tooLong, err
	}
}

// readingNone records that no line being read holds bytes any more.
func (c *conn) readingNone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reading = 0
}

// join makes one slice of parts, whose lengths add up to n.
func join(parts [][]byte, n int) []byte {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		b = append(b, p...)
		parts[i] = nil // garbage as soon as it is copied
	}
	collect(n) // the parts
	return b
}

// hold waits until the line being read may hold n bytes beside the calls
// in flight, and records it; false once the input is closed.
func (c *conn) hold(n int) bool {
	return c.wait(func() bool {
		if c.inFlight+n > c.lim.pending {
			return false
		}
		c.reading = n
		c.peak = max(c.peak, c.inFlight+n)
		return true
	})
}

// wait blocks until ok, called with c.mu held, returns true; false once the
// input is closed.
func (c *conn) wait(ok func() bool) bool {
	for {
		done, hook := c.check(ok)
		if done {
			return true
		}
		if hook != nil {
			hook()
		}
		select {
		case <-c.freed:
		case <-c.quit:
			return false
		}
	}
}

// check calls ok with c.mu held, and gives what it said and the hook to
// run before waiting (nil when none).
func (c *conn) check(ok func() bool) (done bool, hook func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ok(), c.onWait
}

// register records a call until its response; false if its id is taken.
func (c *conn) register(id jsonrpc.ID, weight int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, taken := c.calls[id]; taken {
		return false
	}
	c.calls[id] = weight
	c.inFlight += weight
	c.peak = max(c.peak, c.inFlight)
	return true
}

// release ends a call and wakes readLoop if it waits for room.
func (c *conn) release(id jsonrpc.ID) {
	if weight, ok := c.unregister(id); ok {
		collect(weight) // what the call decoded
		select {
		case c.freed <- struct{}{}:
		default:
		}
	}
}

// unregister forgets a call, giving its weight; false when it was not in
// flight.
func (c *conn) unregister(id jsonrpc.ID) (weight int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	weight, ok = c.calls[id]
	if ok {
		delete(c.calls, id)
		c.inFlight -= weight
	}
	return weight, ok
}

// collectBytes is the size of a line past which its garbage is collected
// at once: when the line is joined or dropped, and when its call is
// answered.
const collectBytes = 8 << 20

// collect runs the garbage collector after a line of n bytes left its
// garbage (n bytes of parts once joined or dropped; several times n that
// the tool decoded once answered). The pacer would let the heap double first, so
// the next large line would be read and decoded beside all of it, and lines
// sent together would peak far above one alone (docs/benchmarks.md,
// "Figures behind the code's comments").
// Large lines are rare and slow to read; a collection of melmux mcp's
// small live heap takes a few milliseconds.
func collect(n int) {
	if n > collectBytes {
		runtime.GC()
	}
}

// peakHeld is the most input held at once so far.
func (c *conn) peakHeld() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak
}

// heldArgumentsKey names a tools/call's arguments in the TokenInfo.Extra of
// the request's RequestExtra: the one place the SDK carries a value of any
// type from the connection to the tool handler untouched (it is never
// written to the wire nor read on stdio).
const heldArgumentsKey = "melmux.arguments"

// heldPlaceholder stands for the arguments in the params the SDK decodes,
// so that a handler that somehow got no arguments beside the request says
// so (toolexec refuses the unknown argument) instead of running without.
const heldPlaceholder = `{"melmux.arguments":"held beside the request"}`

// decode turns a line into a message for the SDK, or into the error
// response that answers it. A call is registered (weighing its whole line,
// which its arguments keep alive until it is answered).
func (c *conn) decode(line []byte, tooLong bool) (jsonrpc.Message, []byte) {
	env, args, answer := split(line, tooLong, c.lim)
	if answer != nil {
		return nil, answer
	}
	msg, err := jsonrpc.DecodeMessage(env)
	if err != nil {
		return nil, errorResponse(idOf(env), jsonrpc.CodeInvalidRequest, "Invalid Request: "+clip(err.Error(), 200))
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg, nil
	}
	if req.IsCall() && !c.register(req.ID, len(line)) {
		return nil, errorResponse(req.ID.Raw(), jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("Invalid Request: id %s is in use by a call not yet answered", clip(string(jsonText(req.ID.Raw())), 80)))
	}
	if args != nil {
		req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{Extra: map[string]any{heldArgumentsKey: args}}}
	}
	return req, nil
}

// split checks that line is one JSON-RPC message (not a batch) and parts
// it into what the SDK decodes, env, and the arguments of a tools/call,
// args (nil for any other message, or a call without them), a slice of
// line. A line that cannot go to the SDK gets the error response instead.
func split(line []byte, tooLong bool, lim limits) (env, args, answer []byte) {
	switch {
	case tooLong:
		return nil, nil, errorResponse(nil, jsonrpc.CodeParseError,
			fmt.Sprintf("Parse error: the message is over the limit of %s for a tools/call's arguments and %s for the rest",
				toolexec.HumanBytes(lim.line-lim.envelope), toolexec.HumanBytes(lim.envelope)))
	case !json.Valid(line):
		var v any
		err := json.Unmarshal(line, &v)
		return nil, nil, errorResponse(nil, jsonrpc.CodeParseError, "Parse error: "+clip(err.Error(), 200))
	case line[0] == '[':
		return nil, nil, errorResponse(nil, jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line")
	case line[0] != '{':
		return nil, nil, errorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be a JSON object")
	}
	// The SDK decodes keys as written (case and all) and keeps the last of
	// a key written twice; so does this.
	var method string
	var id, params span
	eachMember(line, 0, func(key string, val span) {
		switch key {
		case "method":
			method = ""
			if val.len() <= maxNameBytes {
				_ = json.Unmarshal(line[val.start:val.end], &method)
			}
		case "id":
			id = val
		case "params":
			params = val
		}
	})
	env = line
	if method == "tools/call" && params.len() > 0 && line[params.start] == '{' {
		var found []span
		eachMember(line, params.start, func(key string, val span) {
			if key == "arguments" && len(found) < 2 {
				found = append(found, val)
			}
		})
		switch len(found) {
		case 1:
			a := found[0]
			args = line[a.start:a.end]
			env = make([]byte, 0, len(line)-a.len()+len(heldPlaceholder))
			env = append(append(append(env, line[:a.start]...), heldPlaceholder...), line[a.end:]...)
		case 2:
			return nil, nil, errorResponse(rawID(line, id), jsonrpc.CodeInvalidRequest,
				`Invalid Request: the params of a tools/call have "arguments" twice`)
		}
	}
	if rest := len(line) - len(args); rest > lim.envelope {
		what := "the message is"
		if args != nil {
			what = "the message less the tool's arguments is"
		}
		return nil, nil, errorResponse(rawID(line, id), jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("Invalid Request: %s %d bytes, over the %s limit (only a tools/call's arguments may be larger, up to %s)",
				what, rest, toolexec.HumanBytes(lim.envelope), toolexec.HumanBytes(lim.line-lim.envelope)))
	}
	return env, args, nil
}

// span is where a JSON value lies in a line: line[start:end].
type span struct{ start, end int }

func (s span) len() int { return s.end - s.start }

// maxNameBytes is the longest key or method worth decoding: the longest
// name looked for, "tools/call", each of its letters escaped as \uXXXX,
// and the quotes.
const maxNameBytes = 6*len("tools/call") + 2

// eachMember calls f with each member of the object at b[start] in order;
// b must be valid JSON. A key too long to be one looked for is "".
func eachMember(b []byte, start int, f func(key string, val span)) {
	i := skipSpace(b, start+1)
	if i >= len(b) || b[i] == '}' {
		return
	}
	for i < len(b) {
		keyEnd := skipString(b, i)
		key := ""
		if raw := b[i:keyEnd]; len(raw) <= maxNameBytes {
			if bytes.IndexByte(raw, '\\') < 0 {
				key = string(raw[1 : len(raw)-1])
			} else {
				_ = json.Unmarshal(raw, &key)
			}
		}
		i = skipSpace(b, skipSpace(b, keyEnd)+1) // past the colon
		end := skipValue(b, i)
		f(key, span{i, end})
		i = skipSpace(b, end)
		if i >= len(b) || b[i] == '}' {
			return
		}
		i = skipSpace(b, i+1) // past the comma
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the string starting at b[i].
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		escapes := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the end of the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !isDelimiter(b[j]) {
		j++
	}
	return j
}

// isDelimiter reports whether c ends a number or a literal.
func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// rawID is the id at s in line for an error response when it is a valid
// one, else nil (null).
func rawID(line []byte, s span) any {
	if s.len() == 0 || s.len() > 256 {
		return nil
	}
	return validID(line[s.start:s.end])
}

// idOf recovers a request's id for an error response when it is a valid
// one, else nil (null).
func idOf(line []byte) any {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return nil
	}
	return validID(probe.ID)
}

func validID(raw []byte) any {
	var id any
	if json.Unmarshal(raw, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string, float64:
		return id
	}
	return nil
}

func jsonText(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// errorResponse encodes a JSON-RPC error response line; id nil is null.
func errorResponse(id any, code int64, message string) []byte {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      any       `json:"id"`
		Error   wireError `json:"error"`
	}{"2.0", id, wireError{code, message}})
	if err != nil { // unreachable: every field is a plain value
		return nil
	}
	return append(data, '\n')
}

// clip shortens s to at most n bytes at a rune boundary; JSON error texts
// can quote the input.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// lockedWriter serialises whole writes: the SDK writes each message in one
// Write, and so does readLoop, so lines never interleave.
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
