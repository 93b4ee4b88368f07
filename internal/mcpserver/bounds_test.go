package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/melmux/melmux/toolexec"
)

// startConn serves srv over a conn with the given limits to a rawClient;
// onWait, if not nil, is called each time the reader waits for room.
func startConn(t *testing.T, srv *mcp.Server, lim limits, onWait func()) (*rawClient, *conn) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := newConn(inR, outW, lim)
	c.onWait = onWait
	rc := &rawClient{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		rc.done <- serve(context.Background(), srv, c)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return rc, c
}

// blockingTool is a tool for tests: each call reports its arguments' size on
// started and returns only when release has a value for it.
type blockingTool struct {
	started chan int
	release chan struct{}
}

func newBlockingServer(t *testing.T) (*mcp.Server, *blockingTool) {
	t.Helper()
	bt := &blockingTool{started: make(chan int, 100), release: make(chan struct{}, 100)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := len(arguments(req))
			bt.started <- n
			select {
			case <-bt.release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(n)}}}, nil
		})
	return srv, bt
}

// blockLine is a call of the block tool whose line is about size bytes.
func blockLine(id int, size int) []byte {
	pad := max(size-80, 0)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{"pad":"%s"}}}`+"\n",
		id, strings.Repeat("x", pad))
}

func (c *rawClient) sendBytes(line []byte) {
	c.t.Helper()
	if _, err := c.in.Write(line); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s", what)
		var zero T
		return zero
	}
}

// Pipelined large lines are read one after another as their calls are
// answered, not all at once: with room for one line, the second is read
// only as far as the room allows while the first call runs, and the
// input held never goes over the bound.
func TestPipelinedLinesWaitForRoom(t *testing.T) {
	srv, bt := newBlockingServer(t)
	lim := limits{line: 1 << 20, envelope: 4 << 10, pending: 1<<20 + 64<<10, calls: 8}
	waiting := make(chan struct{}, 1)
	rc, c := startConn(t, srv, lim, func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	})
	rc.initialize()
	const lines, size = 4, 900 << 10
	go func() {
		for i := 1; i <= lines; i++ {
			if _, err := rc.in.Write(blockLine(i, size)); err != nil {
				return
			}
		}
	}()
	for i := 1; i <= lines; i++ {
		if n := waitFor(t, bt.started, fmt.Sprintf("call %d", i)); n < size-100 {
			t.Fatalf("call %d got %d bytes of arguments", i, n)
		}
		if i < lines {
			// Call i runs; the reader has stopped in line i+1 for want of
			// room, so no other call can have started.
			waitFor(t, waiting, "wait for room")
			if n := len(bt.started); n != 0 {
				t.Fatalf("%d more calls started while call %d ran", n, i)
			}
		}
		if p := c.peakHeld(); p > lim.pending {
			t.Fatalf("held %d bytes, over the bound of %d", p, lim.pending)
		}
		bt.release <- struct{}{}
		if m := rc.recv(); m["id"] != float64(i) || m["result"] == nil {
			t.Fatalf("answer to call %d: %.200v", i, m)
		}
	}
}

// A small call is read and answered while a large one runs.
func TestSmallCallsPassBesideALargeOne(t *testing.T) {
	srv, bt := newBlockingServer(t)
	lim := limits{line: 1 << 20, envelope: 4 << 10, pending: 1<<20 + 64<<10, calls: 8}
	rc, _ := startConn(t, srv, lim, nil)
	rc.initialize()
	rc.sendBytes(blockLine(1, 1<<20-64))
	waitFor(t, bt.started, "the large call")
	rc.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := rc.recv(); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("tools/list beside a large call: %.200v", m)
	}
	rc.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	if m := rc.recv(); m["id"] != float64(1) {
		t.Fatalf("the cancelled call: %.200v", m)
	}
}

// No more than the calls limit run at once; the next line is read when one
// of them is answered.
func TestCallsInFlightAreBounded(t *testing.T) {
	srv, bt := newBlockingServer(t)
	waiting := make(chan struct{}, 1)
	rc, _ := startConn(t, srv, limits{line: 1 << 20, envelope: 4 << 10, pending: 2 << 20, calls: 2}, func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	})
	rc.initialize()
	go func() { // the third waits in the pipe
		for i := 1; i <= 3; i++ {
			if _, err := rc.in.Write(blockLine(i, 100)); err != nil {
				return
			}
		}
	}()
	waitFor(t, bt.started, "call 1")
	waitFor(t, bt.started, "call 2")
	waitFor(t, waiting, "wait for a call to end")
	if n := len(bt.started); n != 0 {
		t.Fatalf("%d calls started beyond the limit of 2", n)
	}
	bt.release <- struct{}{}
	rc.recv()
	waitFor(t, bt.started, "call 3 once one ended")
	bt.release <- struct{}{}
	bt.release <- struct{}{}
	rc.recv()
	rc.recv()
}

// An id in use by a call not yet answered is refused; once answered it is
// free again.
func TestIDInUse(t *testing.T) {
	srv, bt := newBlockingServer(t)
	rc, _ := startConn(t, srv, defaultLimits, nil)
	rc.initialize()
	rc.sendBytes(blockLine(7, 100))
	waitFor(t, bt.started, "call 7")
	rc.sendBytes(blockLine(7, 100))
	if code, msg, id := errorOf(rc.recv()); code != jsonrpc.CodeInvalidRequest || id != float64(7) ||
		msg != "Invalid Request: id 7 is in use by a call not yet answered" {
		t.Fatalf("second call 7: %v %v %q", code, id, msg)
	}
	bt.release <- struct{}{}
	if m := rc.recv(); m["id"] != float64(7) || m["result"] == nil {
		t.Fatalf("call 7: %.200v", m)
	}
	rc.sendBytes(blockLine(7, 100))
	waitFor(t, bt.started, "call 7 again")
	bt.release <- struct{}{}
	if m := rc.recv(); m["id"] != float64(7) || m["result"] == nil {
		t.Fatalf("call 7 again: %.200v", m)
	}
}

// Only a tools/call's arguments may be large: anything else over the
// envelope limit is refused with -32600 naming both limits, and the
// session goes on.
func TestEnvelopeLimit(t *testing.T) {
	srv, _ := newBlockingServer(t)
	lim := limits{line: 1 << 20, envelope: 4 << 10, pending: 2 << 20, calls: 8}
	rc, _ := startConn(t, srv, lim, nil)
	rc.initialize()
	big := strings.Repeat("y", 8<<10)
	for _, tc := range []struct {
		line, msg string
		id        any
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"` + big + `"}}`,
			"Invalid Request: the message is 8261 bytes, over the 4 KiB limit (only a tools/call's arguments may be larger, up to 1020 KiB)", float64(1)},
		{`{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"block","_meta":{"x":"` + big + `"},"arguments":{}}}`,
			"Invalid Request: the message less the tool's arguments is 8296 bytes, over the 4 KiB limit", "m"},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"` + big + `"}}`,
			"Invalid Request: the message is", nil},
		{`{"jsonrpc":"2.0","id":3,"result":{"x":"` + big + `"}}`, "over the 4 KiB limit", float64(3)},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block","arguments":{},"arguments":{}}}`,
			`Invalid Request: the params of a tools/call have "arguments" twice`, float64(4)},
	} {
		rc.send(tc.line)
		code, msg, id := errorOf(rc.recv())
		if code != jsonrpc.CodeInvalidRequest || id != tc.id || !strings.Contains(msg, tc.msg) {
			t.Errorf("%.60s: got %v %v %q, want -32600 %v %q", tc.line, code, id, msg, tc.id, tc.msg)
		}
	}
	rc.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if m := rc.recv(); m["id"] != float64(9) || m["result"] == nil {
		t.Fatalf("tools/list after: %.200v", m)
	}
}

// The tool gets a call's arguments exactly as written, however they are
// spelt: escaped keys, nesting, strings holding braces and quotes, space.
func TestArgumentsReachTheToolAsWritten(t *testing.T) {
	got := make(chan string, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got <- arguments(req)
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
		})
	rc, _ := startConn(t, srv, defaultLimits, nil)
	rc.initialize()
	for _, tc := range []struct{ params, want string }{
		{`{"name":"echo","arguments":{"a":"}\"{","b":[1,{"c":null}]}}`, `{"a":"}\"{","b":[1,{"c":null}]}`},
		{`{ "arguments" : { "x" : "\\" } , "name" : "echo" }`, `{ "x" : "\\" }`},
		{`{"name":"echo","\u0061rguments":{"k":true}}`, `{"k":true}`},
		{`{"name":"echo","Arguments":{"k":1}}`, ``},
		{`{"name":"echo"}`, ``},
		{`{"name":"echo","arguments":null}`, `null`},
	} {
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + tc.params + `}`)
		if a := waitFor(t, got, "the call"); a != tc.want {
			t.Errorf("%s: the tool got %q, want %q", tc.params, a, tc.want)
		}
		if m := rc.recv(); m["result"] == nil {
			t.Errorf("%s: %.200v", tc.params, m)
		}
	}
}

// allocated returns the bytes allocated by the process while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// scaledLimits are the real limits with room for a 12 MiB line instead of
// 96 MiB, everything else as it is: the envelope, the room beside a line and
// the calls in flight. Under the race detector every pass over a 95 MiB line
// (reading it, the JSON check, the tool decoding it) costs seconds, so the
// tests of what the bounds do run at these; a large line here is still over
// collectBytes, so its garbage is collected as a real one's is.
// TestLargestArgumentsPass and TestLineOverTheRealLimit keep the real limits.
var scaledLimits = limits{
	line:     12<<20 + MaxEnvelopeBytes,
	envelope: MaxEnvelopeBytes,
	pending:  12<<20 + MaxEnvelopeBytes + (MaxPendingBytes - MaxLineBytes),
	calls:    MaxCallsInFlight,
}

// largeLine is the size of a large line at scaledLimits: 11 MiB, as 95 MiB
// is at the real ones.
const largeLine = 11 << 20

// A large line reaches the tool with one copy of it read and nothing more
// of its size (the SDK's stdio transport copied it eight times over).
func TestLargeLineIsReadOnce(t *testing.T) {
	srv, bt := newBlockingServer(t)
	rc, c := startConn(t, srv, scaledLimits, nil)
	rc.initialize()
	line := blockLine(1, largeLine)
	n := allocated(func() {
		rc.sendBytes(line)
		waitFor(t, bt.started, "the call")
		bt.release <- struct{}{}
		rc.recv()
	})
	// The line's parts as read and the line they make.
	if limit := uint64(2*len(line) + 4<<20); n > limit {
		t.Errorf("a %d MiB line allocated %d MiB, over %d MiB", len(line)>>20, n>>20, limit>>20)
	}
	if p := c.peakHeld(); p > len(line) {
		t.Errorf("held %d bytes for a line of %d", p, len(line))
	}
}

// Six large lines sent together are read one at a time as their calls are
// answered, within the bound on input held: the second waits, part-read,
// while the first runs.
func TestPipelinedLargeLines(t *testing.T) {
	srv, bt := newBlockingServer(t)
	waiting := make(chan struct{}, 1)
	rc, c := startConn(t, srv, scaledLimits, func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	})
	rc.initialize()
	line := blockLine(1, largeLine)
	idAt := bytes.Index(line, []byte(`"id":1`)) + len(`"id":`)
	const lines = 6
	go func() {
		for i := 1; i <= lines; i++ {
			line[idAt] = byte('0' + i) // the last Write returned once all of line was read
			if _, err := rc.in.Write(line); err != nil {
				return
			}
		}
	}()
	for i := 1; i <= lines; i++ {
		waitFor(t, bt.started, fmt.Sprintf("call %d", i))
		if i < lines {
			waitFor(t, waiting, "wait for room")
			if n := len(bt.started); n != 0 {
				t.Fatalf("%d more calls started while call %d ran", n, i)
			}
		}
		bt.release <- struct{}{}
		if m := rc.recv(); m["id"] != float64(i) || m["result"] == nil {
			t.Fatalf("answer to call %d: %.200v", i, m)
		}
	}
	if p := c.peakHeld(); p > scaledLimits.pending {
		t.Errorf("held %d bytes, over the bound (%d)", p, scaledLimits.pending)
	}
}

// sendKeysLine is a send_keys call whose text is n bytes of x, written out
// as a client's JSON encoder writes it.
func sendKeysLine(n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"pane":1,"text":"` +
		strings.Repeat("x", n) + `"},"name":"send_keys"}}` + "\n")
}

// A large call inside the line limit gets the tool's own answer, and what
// the tool decoded is garbage by the time the call is answered, collected
// then: what is left is the line here and the line read, not several times
// it, for the next line to be read beside.
func TestLargeCallGetsTheToolsAnswer(t *testing.T) {
	ex := &toolexec.Executor{Root: t.TempDir(), Role: toolexec.RoleLead}
	t.Cleanup(func() { ex.Close() })
	srv, err := New(Options{Executor: ex, Tools: []string{"send_keys"}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := startConn(t, srv, scaledLimits, nil)
	rc.initialize()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	line := sendKeysLine(largeLine)
	rc.sendBytes(line)
	m := rc.recv()
	res, _ := m["result"].(map[string]any)
	want := fmt.Sprintf(`send_keys: argument "text" is %d bytes, over the limit of 256 KiB`, largeLine)
	if m["id"] != float64(1) || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), want) {
		t.Fatalf("a %d MiB call: %.300v", largeLine>>20, m)
	}
	runtime.ReadMemStats(&ms)
	t.Logf("heap: %d MiB before the call, %d MiB once answered", before>>20, ms.HeapAlloc>>20)
	if limit := before + uint64(2*len(line)+4<<20); ms.HeapAlloc > limit {
		t.Errorf("heap of %d MiB once a %d MiB call was answered, over %d MiB (%d MiB before it)",
			ms.HeapAlloc>>20, len(line)>>20, limit>>20, before>>20)
	}
	runtime.KeepAlive(line)
}

// A line over the real limit gets the documented -32700 and costs no more
// than the limit.
func TestLineOverTheRealLimit(t *testing.T) {
	srv, _ := newBlockingServer(t)
	rc, _ := startConn(t, srv, defaultLimits, nil)
	rc.initialize()
	over := append(bytes.Repeat([]byte("x"), MaxLineBytes+1<<20), '\n')
	n := allocated(func() {
		rc.sendBytes(over)
		code, msg, id := errorOf(rc.recv())
		if code != jsonrpc.CodeParseError || id != nil ||
			msg != "Parse error: the message is over the limit of 96 MiB for a tools/call's arguments and 64 KiB for the rest" {
			t.Errorf("line over the limit: %v %v %q", code, id, msg)
		}
	})
	if n > MaxLineBytes+1<<20 {
		t.Errorf("a line over the limit allocated %d MiB, over the limit", n>>20)
	}
}

// The largest content write_file takes, escaped as heavily as
// toolexec.MaxArgumentsBytes allows for, passes the line limit and is
// written whole.
func TestLargestArgumentsPass(t *testing.T) {
	root := t.TempDir()
	ex := &toolexec.Executor{Root: root, Role: toolexec.RoleWorker}
	t.Cleanup(func() { ex.Close() })
	srv, err := New(Options{Executor: ex, Tools: []string{"write_file"}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := startConn(t, srv, defaultLimits, nil)
	rc.initialize()
	// Every byte a quote or a newline: two bytes each in JSON. The line is
	// written out by hand: json.Marshal would cost another pass over its
	// 64 MiB.
	content := strings.Repeat("\"\n", toolexec.MaxContentBytes/2)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":"` +
		strings.Repeat(`\"\n`, toolexec.MaxContentBytes/2) + `"}}}` + "\n"
	rc.sendBytes([]byte(line))
	m := rc.recv()
	if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
		t.Fatalf("write_file of %d MiB: %.300v", len(content)>>20, m)
	}
	data, err := os.ReadFile(filepath.Join(root, "big.txt"))
	if err != nil || string(data) != content {
		t.Fatalf("big.txt: %d bytes, %v; want %d", len(data), err, len(content))
	}
}
