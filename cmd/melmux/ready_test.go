package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
)

// What `new` makes of each answer the daemon can give on its ready pipe:
// warnings are printed and the answer after them counts; the first pane's
// error keeps its code (hence the exit status); anything else says the
// server could not start.
func TestReadReady(t *testing.T) {
	pe := &proto.Error{Code: proto.CodeBadParams, Message: "pane 1: cannot run \"x\"\nsecond line"}
	for _, tc := range []struct {
		name, pipe, stderr, err string
		code                    string // proto.Error code, "" for another error or none
	}{
		{name: "ok", pipe: "ok\n"},
		{name: "warnings then ok", pipe: proto.ReadyWarn + "config.toml:3: bad\n" + proto.ReadyWarn + "another\nok\n",
			stderr: "melmux: config.toml:3: bad\nmelmux: another\n"},
		{name: "first pane error", pipe: proto.ReadyError(pe) + "\n", err: pe.Message, code: proto.CodeBadParams},
		{name: "plain error", pipe: proto.ReadyError(errors.New("boom")) + "\n", err: "boom", code: proto.CodeFailed},
		{name: "server error", pipe: "listen on /x: address in use\n", err: "the session server could not start: listen on /x: address in use"},
		{name: "bad error line", pipe: proto.ReadyErr + "{not json\n", err: "the session server could not start: " + proto.ReadyErr + "{not json"},
		{name: "nothing", pipe: "", err: "the session server exited before it was ready"},
		{name: "warning then nothing", pipe: proto.ReadyWarn + "w\n", stderr: "melmux: w\n", err: "exited before it was ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := w.WriteString(tc.pipe); err != nil {
				t.Fatal(err)
			}
			w.Close()
			var stderr bytes.Buffer
			err = readReady(&cli.Globals{Stderr: &stderr}, r, "s")
			if stderr.String() != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.stderr)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			var got *proto.Error
			if errors.As(err, &got) != (tc.code != "") || (got != nil && got.Code != tc.code) {
				t.Fatalf("error %#v, want a proto.Error with code %q", err, tc.code)
			}
		})
	}
}
