package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/melmux/melmux/toolexec"
)

// MaxLineBytes bounds one message from the client: room for the largest
// arguments a tool accepts (toolexec.MaxArgumentsBytes) and the envelope.
const MaxLineBytes = toolexec.MaxArgumentsBytes + 64<<10

// exitGrace is how long Serve waits, once the client has gone (or ctx has
// ended), for the calls in flight to return: their contexts are cancelled
// then, and each tool stops or is abandoned within toolexec's own grace.
const exitGrace = 10 * time.Second

// Serve runs srv on stdin and stdout until the client goes away (stdin
// reaches EOF) or ctx ends. Either way the input is closed, which makes the
// SDK cancel the contexts of the calls in flight (as the client's
// notifications/cancelled does for one call); Serve then waits for them at
// most exitGrace.
func Serve(ctx context.Context, srv *mcp.Server, stdin io.Reader, stdout io.Writer) error {
	// The SDK's stdio transport ends the session at the first line that is
	// not a JSON-RPC message. Lines are checked here first: a bad one is
	// answered with a JSON-RPC error (-32700 for text that is not JSON,
	// -32600 for JSON that is not a message) and the session goes on; good
	// ones reach the SDK through a pipe.
	pr, pw := io.Pipe()
	out := &lockedWriter{w: stdout}
	inputDone := make(chan struct{})
	go func() {
		defer close(inputDone)
		pw.CloseWithError(filterLines(stdin, pw, out)) // nil: the SDK reads EOF
	}()
	runDone := make(chan error, 1)
	go func() {
		runDone <- srv.Run(context.Background(), &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}, MaxLineLength: -1})
	}()
	select {
	case err := <-runDone:
		return err
	case <-inputDone:
	case <-ctx.Done():
		pw.Close()
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

// filterLines copies each line of in that is one JSON-RPC message (not a
// batch) to pass, newline-terminated, and answers every other line on out
// with a JSON-RPC error. It returns nil at EOF.
func filterLines(in io.Reader, pass io.Writer, out io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxLineBytes)
		if len(line) > 0 || tooLong {
			if msg := check(line, tooLong); msg != nil {
				if _, werr := out.Write(msg); werr != nil {
					return werr
				}
			} else if _, werr := pass.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line without its newline and surrounding space. A line
// over limit is discarded as it is read (tooLong), so it costs no memory.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(buf), tooLong, err
	}
}

// check returns the error response for a line that cannot go to the SDK,
// or nil for a line that is one JSON-RPC message.
func check(line []byte, tooLong bool) []byte {
	switch {
	case tooLong:
		return errorResponse(nil, jsonrpc.CodeParseError,
			fmt.Sprintf("Parse error: the message is over the %d MiB limit", MaxLineBytes>>20))
	case !json.Valid(line):
		var v any
		err := json.Unmarshal(line, &v)
		return errorResponse(nil, jsonrpc.CodeParseError, "Parse error: "+clip(err.Error(), 200))
	case line[0] == '[':
		return errorResponse(nil, jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line")
	case line[0] != '{':
		return errorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be a JSON object")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return errorResponse(idOf(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+clip(err.Error(), 200))
	}
	return nil
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
	var id any
	if json.Unmarshal(probe.ID, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string, float64:
		return id
	}
	return nil
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
// Write, and so does filterLines, so lines never interleave.
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
