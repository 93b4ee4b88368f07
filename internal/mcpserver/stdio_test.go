package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/melmux/melmux/toolexec"
)

// rawClient speaks newline-delimited JSON to Serve over pipes.
type rawClient struct {
	t     *testing.T
	in    *io.PipeWriter
	out   *bufio.Reader
	done  chan error
	ident int
}

func startRaw(t *testing.T, tools ...string) *rawClient {
	t.Helper()
	ex := &toolexec.Executor{Root: t.TempDir(), Role: toolexec.RoleLead, MemoryPath: t.TempDir() + "/m.db"}
	t.Cleanup(func() { ex.Close() })
	srv, err := New(Options{Executor: ex, Tools: tools, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, srv)
}

// startServer serves srv to a rawClient.
func startServer(t *testing.T, srv *mcp.Server) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawClient{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		c.done <- Serve(context.Background(), srv, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// recv reads the next message.
func (c *rawClient) recv() map[string]any {
	c.t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := c.out.ReadString('\n')
		ch <- result{line, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			c.t.Fatalf("recv: %v (the server ended?)", r.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			c.t.Fatalf("recv %q: %v", r.line, err)
		}
		return m
	case <-time.After(2 * time.Minute): // a 64 MiB call under -race takes seconds
		c.t.Fatal("no answer: the server is stuck")
		return nil
	}
}

func (c *rawClient) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := c.recv(); m["id"] != "init" || m["result"] == nil {
		c.t.Fatalf("initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errorOf(m map[string]any) (code float64, message string, id any) {
	e, _ := m["error"].(map[string]any)
	code, _ = e["code"].(float64)
	message, _ = e["message"].(string)
	return code, message, m["id"]
}

// One bad line is answered with a JSON-RPC error and the session goes on,
// before and after initialisation.
func TestBadLinesDoNotEndTheSession(t *testing.T) {
	c := startRaw(t, "read_file")
	for round := 0; round < 2; round++ {
		for _, tc := range []struct {
			line string
			code float64
			id   any
			msg  string
		}{
			{`this is not json`, -32700, nil, "Parse error: invalid character"},
			{`{"jsonrpc":"2.0","id":1,"method":"tools/list"`, -32700, nil, "Parse error: unexpected end of JSON input"},
			{`{"jsonrpc":"2.0"} trailing`, -32700, nil, "Parse error"},
			{`42`, -32600, nil, "a message must be a JSON object"},
			{`[]`, -32600, nil, "batches are not supported"},
			{`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, -32600, nil, "batches are not supported"},
			{`{}`, -32600, nil, "Invalid Request"},
			{`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`, -32600, float64(3), "version tag"},
			{`{"jsonrpc":"2.0","id":"x","method":5}`, -32600, "x", "Invalid Request"},
			{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, nil, "Invalid Request"},
		} {
			c.send(tc.line)
			code, msg, id := errorOf(c.recv())
			if code != tc.code || id != tc.id || !strings.Contains(msg, tc.msg) {
				t.Errorf("%s: got code %v id %v %q, want %v %v %q", tc.line, code, id, msg, tc.code, tc.id, tc.msg)
			}
		}
		if round == 0 {
			c.initialize()
		}
	}
	c.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	m := c.recv()
	res, _ := m["result"].(map[string]any)
	if m["id"] != float64(9) || res == nil || !strings.Contains(fmt.Sprint(res["tools"]), "read_file") {
		t.Fatalf("tools/list after bad lines: %v", m)
	}
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return at EOF")
	}
}

// A line over the limit is answered with -32700 and dropped as soon as it
// goes over, and the next line is read normally.
func TestOverlongLine(t *testing.T) {
	in := strings.NewReader(strings.Repeat("x", 300) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	c := newConn(in, io.Discard, limits{line: 100, envelope: 50, pending: 1000, calls: 4})
	c.in = bufio.NewReaderSize(in, 16)
	line, tooLong, err := c.readLine()
	if !tooLong || line != nil || err != nil {
		t.Fatalf("long line: %q %v %v", line, tooLong, err)
	}
	if _, msg := c.decode(line, tooLong); !strings.Contains(string(msg), `"code":-32700`) || !strings.Contains(string(msg), "over the limit of 50 bytes for a tools/call's arguments and 50 bytes for the rest") {
		t.Errorf("answer %s", msg)
	}
	if p := c.peakHeld(); p > 100+16 {
		t.Errorf("held %d bytes of a line over the 100-byte limit", p)
	}
	line, tooLong, err = c.readLine()
	if tooLong || string(line) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` || err != nil {
		t.Fatalf("next line: %q %v %v", line, tooLong, err)
	}
}

// FuzzCheckLine feeds arbitrary lines to the check in front of the SDK: it
// must never panic, every line it passes must be one message, the one the
// SDK decodes from the whole line with the arguments of a tools/call held
// beside it as they were written, and every line it refuses gets one
// well-formed JSON-RPC error line with a code the specification defines.
func FuzzCheckLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"x"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`[]`, `[{}]`, `{}`, `null`, `"x"`, `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, "\xff", `{"id":[1]}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"\u0061rguments":{"a":"}\\\""},"name":"x"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":[1,{"b":null}],"name":"x","_meta":{}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || bytes.ContainsRune(line, '\n') {
			return // filterLines never passes these
		}
		c := newConn(strings.NewReader(""), io.Discard, defaultLimits)
		m, msg := c.decode(line, false)
		if msg == nil {
			if m == nil {
				t.Fatalf("%q: neither a message nor an answer", line)
			}
			sameAsTheSDK(t, line, m)
			return
		}
		if !bytes.HasSuffix(msg, []byte("\n")) || bytes.Count(msg, []byte("\n")) != 1 {
			t.Fatalf("answer %q is not one line", msg)
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(msg, &resp); err != nil || resp.JSONRPC != "2.0" || resp.ID == nil {
			t.Fatalf("answer %q is not a JSON-RPC error response: %v", msg, err)
		}
		if resp.Error.Code != jsonrpc.CodeParseError && resp.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("answer %q has code %d", msg, resp.Error.Code)
		}
		if len(msg) > 600 {
			t.Fatalf("answer of %d bytes", len(msg))
		}
	})
}

// A call to a tool that is not served is refused naming the tools that are,
// and for a melmux tool left out, how to get it.
func TestUnknownToolNamesTheTools(t *testing.T) {
	ex := &toolexec.Executor{Root: t.TempDir(), Role: toolexec.RoleLead}
	t.Cleanup(func() { ex.Close() })
	srv, err := New(Options{Executor: ex, Tools: []string{"list_panes", "read_pane"}, Version: "test", NotServed: "ask for it"})
	if err != nil {
		t.Fatal(err)
	}
	c := startServer(t, srv)
	c.initialize()
	for _, tc := range []struct{ name, want string }{
		{"frob", `unknown tool "frob" (tools: list_panes, read_pane)`},
		{"read_file", `tool "read_file" is not served here (tools: list_panes, read_pane); ask for it`},
	} {
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tc.name + `","arguments":{}}}`)
		if code, msg, _ := errorOf(c.recv()); code != jsonrpc.CodeInvalidParams || msg != tc.want {
			t.Errorf("%s: got %v %q, want %q", tc.name, code, msg, tc.want)
		}
	}
}

// sameAsTheSDK checks m, decoded from line, against what the SDK decodes
// from the whole line: the same kind of message, method and id, and for a
// tools/call, the arguments the tool gets are those the params hold.
func sameAsTheSDK(t *testing.T, line []byte, m jsonrpc.Message) {
	want, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return // the SDK refuses some lines the standard library's JSON takes; these are ours to answer
	}
	wreq, wok := want.(*jsonrpc.Request)
	req, ok := m.(*jsonrpc.Request)
	if ok != wok {
		t.Fatalf("%q: decoded as %T, the SDK decodes %T", line, m, want)
	}
	if !ok {
		return
	}
	if req.Method != wreq.Method || req.ID != wreq.ID {
		t.Fatalf("%q: method %q id %v, the SDK has %q %v", line, req.Method, req.ID, wreq.Method, wreq.ID)
	}
	var params map[string]json.RawMessage
	if req.Method != "tools/call" || json.Unmarshal(wreq.Params, &params) != nil {
		return
	}
	got := arguments(&mcp.CallToolRequest{Extra: extraOf(req), Params: &mcp.CallToolParamsRaw{}})
	if got != string(params["arguments"]) {
		t.Fatalf("%q: the tool gets arguments %q, the params hold %q", line, got, params["arguments"])
	}
}

func extraOf(req *jsonrpc.Request) *mcp.RequestExtra {
	e, _ := req.Extra.(*mcp.RequestExtra)
	return e
}
