package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/proto"
)

// paramShapes are the parameter types the command table decodes requests
// into, each with its method's name.
var paramShapes = map[string]func() any{
	"new":            func() any { return &proto.NewParams{} },
	"open_pane":      func() any { return &proto.OpenPaneParams{} },
	"send_keys":      func() any { return &proto.SendKeysParams{} },
	"read_pane":      func() any { return &proto.ReadPaneParams{} },
	"kill_pane":      func() any { return &proto.PaneRef{} },
	"wait":           func() any { return &proto.WaitParams{} },
	"resize":         func() any { return &proto.ResizeParams{} },
	"spawn_agent":    func() any { return &proto.SpawnAgentParams{} },
	"send_agent":     func() any { return &proto.SendAgentParams{} },
	"read_agent":     func() any { return &proto.ReadAgentParams{} },
	"agent_register": func() any { return &proto.AgentRegisterParams{} },
	"agent_next":     func() any { return &proto.AgentNextParams{} },
	"agent_report":   func() any { return &proto.AgentReportParams{} },
	"ls":             func() any { return &struct{}{} },
}

// FuzzControlDecoder feeds arbitrary bytes to the control protocol's
// decoding: the hello, JSON lines through the size-limited line reader
// (lines over the limit, CR LF, no final newline), requests, every command's
// parameters, and the same bytes as attach frames. Nothing may panic; a
// refused request is an error value with a code and a message naming the
// method; a line is never longer than the limit; frames stay within theirs.
func FuzzControlDecoder(f *testing.F) {
	for _, seed := range []string{
		`{"version":1,"mode":"control"}` + "\n" + `{"id":1,"method":"list_panes"}` + "\n",
		`{"id":2,"method":"read_pane","params":{"pane":"one"}}` + "\n" + `{"id":3,"method":"read_pane","params":{"pane":1,"colour":true}}`,
		`{"id":4,"method":"send_keys","params":{"pane":1,"text":"ls\n","settle_ms":-1}}` + "\r\n" + `not json` + "\n\n",
		`{"id":5,"method":"wait","params":{"pane":1,"match":"(a+)+$","timeout_ms":1e400}}` + "\n",
		`{"id":6,"method":"open_pane","params":[1,2]}` + "\n" + `{"id":1e3,"method":7}` + "\n" + `{"id":7,"method":"new","params":{"command":["sh","-c","x"],"env":["A=1"],"cols":-5}}`,
		`{"id":8,"method":"agent_report","params":{"pane":1,"id":"\u0000","state":"idle","legs":9223372036854775808}}`,
		"r\x00\x00\x00\x04\xff\xff\xff\xffi\x00\x00\x00\x03abc" + "x\x00\x00\x00\x00",
		strings.Repeat("{", 300) + "\n" + strings.Repeat("a", 5000) + "\n" + `{"id":9,"method":"ls","params":null}`,
	} {
		f.Add([]byte(seed))
	}
	const limit = 4096 // small, so lines over it are common
	f.Fuzz(func(t *testing.T, data []byte) {
		var hello proto.Hello
		_ = json.Unmarshal(data, &hello)

		lr := proto.NewLineReader(bytes.NewReader(data), limit)
		for {
			line, err := lr.ReadLine()
			if errors.Is(err, proto.ErrLineTooLong) {
				continue
			}
			if err != nil {
				break
			}
			if len(line) > limit+1 {
				t.Fatalf("a line of %d bytes passed a %d byte limit", len(line), limit)
			}
			req, perr := decodeRequest(line)
			if perr != nil {
				if perr.Code != proto.CodeBadRequest || perr.Message == "" {
					t.Fatalf("a bad line gave %+v", perr)
				}
				continue
			}
			for method, shape := range paramShapes {
				err := decodeParams(method, req.Params, shape())
				if err == nil {
					continue
				}
				var pe *proto.Error
				if !errors.As(err, &pe) || pe.Code != proto.CodeBadParams || !strings.HasPrefix(pe.Message, method+": ") {
					t.Fatalf("%s params %q: %v", method, req.Params, err)
				}
			}
		}

		r := bytes.NewReader(data)
		buf := make([]byte, 0, 64)
		for {
			typ, payload, err := proto.ReadFrame(r, buf)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "exceeds the") {
					t.Fatalf("frame error %v", err)
				}
				break
			}
			if len(payload) > proto.MaxFrame {
				t.Fatalf("a frame of %d bytes", len(payload))
			}
			if typ == proto.FrameResize {
				if cols, rows, err := proto.ParseResize(payload); err == nil {
					if w, h := clientSize(cols, rows); w < 1 || h < 1 || w > MaxClientCols || h > MaxClientRows {
						t.Fatalf("resize %dx%d taken as %dx%d", cols, rows, w, h)
					}
				}
			}
		}
	})
}
