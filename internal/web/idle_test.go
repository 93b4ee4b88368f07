package web

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// rawFrame reads one WebSocket frame the server sent (unmasked).
func rawFrame(t *testing.T, r *bufio.Reader) (op byte, payload []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatalf("read a frame: %v", err)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(r, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		t.Fatalf("read a frame's %d bytes: %v", n, err)
	}
	return h[0] & 0x0f, payload
}

// rawSend sends a masked frame (a zero mask) of opcode op.
func rawSend(t *testing.T, c net.Conn, op byte, payload []byte) {
	t.Helper()
	if len(payload) > 125 {
		t.Fatal("rawSend sends short frames only")
	}
	frame := append([]byte{0x80 | op, 0x80 | byte(len(payload)), 0, 0, 0, 0}, payload...)
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
}

// An idle session sends a page nothing but keep-alives: after the first
// frame, what comes is pings, which the page answers, and no frame.
func TestAnIdleSessionSendsOnlyPings(t *testing.T) {
	old := pingEvery
	pingEvery = 20 * time.Millisecond
	defer func() { pingEvery = old }()
	r := start(t)
	cookie := r.login(r.token("a", false))
	conn, err := net.Dial("tcp", r.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	askUpgrade(conn, r, cookie)
	br := bufio.NewReader(conn)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if l == "\r\n" {
			break
		}
	}
	rawSend(t, conn, 0x1, []byte(`{"t":"watch","panes":[1]}`))
	var got []string
	for seen := false; !seen; {
		op, p := rawFrame(t, br)
		if op == 0x9 {
			rawSend(t, conn, 0xA, p)
			continue
		}
		got = append(got, string(p))
		seen = strings.HasPrefix(string(p), `{"t":"screen"`)
	}
	for i := 0; i < 5; i++ {
		op, p := rawFrame(t, br)
		if op != 0x9 {
			t.Fatalf("after the first frame (%d messages) an idle session sent opcode %#x: %.200s", len(got), op, p)
		}
		rawSend(t, conn, 0xA, p)
	}
}
