package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// sessionSocket is the socket of the session named by -s / $MELMUX_SESSION /
// $MELMUX_SOCKET, once the name is known to be one a session may have.
func sessionSocket(g *cli.Globals) (string, error) {
	if err := proto.ValidateSessionName(proto.SessionName(g.Session)); err != nil {
		if g.Session == "" {
			return "", cli.Usagef("$MELMUX_SESSION: %v", err)
		}
		return "", cli.Usagef("%v", err)
	}
	return proto.SocketPath(g.Session), nil
}

// dial connects to the session named by -s / $MELMUX_SESSION / $MELMUX_SOCKET.
func dial(g *cli.Globals) (*client.Client, error) {
	sock, err := sessionSocket(g)
	if err != nil {
		return nil, err
	}
	c, err := client.Dial(sock)
	return c, namedNoSession(g, err)
}

// call runs one command on the session and decodes its result, on a
// connection of its own (client.Once: one round trip, not two).
func call(g *cli.Globals, method string, params, result any) error {
	sock, err := sessionSocket(g)
	if err != nil {
		return err
	}
	return namedNoSession(g, client.Once(context.Background(), sock, method, params, result))
}

// namedNoSession names the session in a missing server's error.
func namedNoSession(g *cli.Globals, err error) error {
	if errors.Is(err, client.ErrNoServer) {
		return fmt.Errorf("no session %q: %w", proto.SessionName(g.Session), err)
	}
	return err
}

// paneFlag parses -t PANE: a pane id, optionally written %N as tmux users type.
func paneFlag(g *cli.Globals, verb, s string) (int, error) {
	if s == "" {
		if id := cli.EnvPane(g); id > 0 {
			return id, nil
		}
		return 0, cli.Usagef("%s: -t PANE is required (a pane id from `melmux list-panes`)", verb)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "%"))
	if err != nil || n <= 0 {
		return 0, cli.Usagef("%s: -t %q is not a pane id (a positive integer from `melmux list-panes`)", verb, s)
	}
	return n, nil
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", escapeJSON(b))
	return err
}

// escapeJSON writes as \u escapes what encoding/json leaves raw and a
// terminal would act on: DEL, the C1 controls (U+009B is CSI to xterm) and
// the bidi controls of client.Visible. Outside strings JSON is ASCII, so
// every such rune is in a string, where the escape means the same.
func escapeJSON(b []byte) []byte {
	if bytes.IndexFunc(b, jsonHidden) < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if jsonHidden(r) {
			out = fmt.Appendf(out, "\\u%04x", r)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

func jsonHidden(r rune) bool {
	return r >= 0x7f && r < 0xa0 || client.IsBidiControl(r)
}

// unescape turns the C escapes people type in shell-quoted text into bytes:
// \n \r \t \e \\ \xHH. Anything else after a backslash stays as typed. \xHH
// is for ASCII: the text travels as UTF-8 (JSON), where a lone byte of 80-ff
// cannot, so it is refused rather than silently replaced.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'e':
			b.WriteByte(0x1b)
		case '\\':
			b.WriteByte('\\')
		case 'x':
			if i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					if v >= 0x80 {
						return "", fmt.Errorf("\\x%s is not ASCII: \\xHH takes 00-7f; type other characters as they are (UTF-8)", s[i+1:i+3])
					}
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteString(`\x`)
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

func sessionLabel(g *cli.Globals) string { return proto.SessionName(g.Session) }

// durationValue is a DUR flag whose error says what a duration looks like,
// and that a bare number needs its unit (`--idle 5` means 5s).
type durationValue struct{ d *time.Duration }

func (v durationValue) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err == nil {
		*v.d = d
		return nil
	}
	if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
		return fmt.Errorf("a duration needs a unit: %ss (units: ms, s, m, h)", s)
	}
	return fmt.Errorf("not a duration (e.g. 500ms, 10s, 2m)")
}

// durationFlag defines a DUR flag with durationValue's errors.
func durationFlag(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	d := def
	fs.Var(durationValue{&d}, name, usage)
	return &d
}
