package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func main() {
	session := flag.String("s", "", "session name")
	flag.Parse()
	d := &driver{sock: proto.SocketPath(*session)}
	if err := d.run(flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "faults: %v\n", err)
		os.Exit(1)
	}
}

type driver struct{ sock string }

func (d *driver) run(args []string) error {
	if len(args) == 0 {
		return errors.New("give a command: stats, panes N, attach N, clients N COLSxROWS, conns N, waits N M, hugesize, mcp MELMUX, third DIR")
	}
	n := 0
	if len(args) > 1 && args[0] != "mcp" && args[0] != "third" {
		var err error
		if n, err = strconv.Atoi(args[1]); err != nil || n < 1 {
			return fmt.Errorf("%s: %q is not a positive count", args[0], args[1])
		}
	}
	switch args[0] {
	case "stats":
		return d.printStats("now", 0)
	case "panes":
		return d.panes(n)
	case "attach":
		return d.attachCycles(n)
	case "clients":
		if len(args) != 3 {
			return errors.New("clients N COLSxROWS")
		}
		cols, rows, ok := parseSize(args[2])
		if !ok {
			return fmt.Errorf("clients: %q is not COLSxROWS", args[2])
		}
		return d.clients(n, cols, rows)
	case "conns":
		return d.conns(n)
	case "waits":
		if len(args) != 3 {
			return errors.New("waits N M")
		}
		m, err := strconv.Atoi(args[2])
		if err != nil || m < 1 {
			return fmt.Errorf("waits: %q is not a positive count", args[2])
		}
		return d.waits(n, m)
	case "hugesize":
		return d.hugeSize()
	case "third":
		if len(args) != 2 {
			return errors.New("third DIR (a directory the attacks may write in)")
		}
		return d.third(args[1])
	case "mcp":
		if len(args) != 2 {
			return errors.New("mcp MELMUX (the melmux binary whose mcp verb to attack)")
		}
		return d.mcp(args[1])
	}
	return fmt.Errorf("unknown command %q", args[0])
}

func parseSize(s string) (int, int, bool) {
	c, r, ok := strings.Cut(s, "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	return cols, rows, ok && err1 == nil && err2 == nil
}

func (d *driver) call(method string, params, result any) error {
	c, err := client.Dial(d.sock)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Call(ctx, method, params, result)
}

func (d *driver) stats() (proto.DebugStats, error) {
	var st proto.DebugStats
	err := d.call("debug_stats", nil, &st)
	return st, err
}

// printStats prints the figures once the server has settled with want
// clients.
func (d *driver) printStats(label string, want int) error {
	st, err := d.settle(want)
	if err != nil {
		return err
	}
	fmt.Printf("%s fds %d goroutines %d rss_kib %d heap_kib %d panes %d clients %d conns %d\n",
		label, st.FDs, st.Goroutines, st.RSSBytes>>10, st.HeapBytes>>10, st.Panes, st.Clients, st.Conns)
	return nil
}

// settle waits (polling: this is a bench tool) until the server counts want
// clients and, with none, only the asking connection, so figures are not
// taken while connections are still being torn down; it returns those
// figures.
func (d *driver) settle(want int) (proto.DebugStats, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := d.stats()
		if err == nil && st.Clients == want && (want > 0 || st.Conns == 1) {
			return st, nil
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("the server still counts %d clients and %d connections after 60s (want %d clients)", st.Clients, st.Conns, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (d *driver) panes(n int) error {
	for i := range n {
		var r proto.OpenPaneResult
		if err := d.call("open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, NoWait: true}, &r); err != nil {
			return fmt.Errorf("cycle %d: open_pane: %w", i+1, err)
		}
		if err := d.call("kill_pane", proto.PaneRef{Pane: r.ID}, nil); err != nil {
			return fmt.Errorf("cycle %d: kill_pane %d: %w", i+1, r.ID, err)
		}
	}
	fmt.Printf("cycles %d\n", n)
	return nil
}

// attachHello connects as a terminal of cols x rows.
func (d *driver) attachHello(cols, rows int) (net.Conn, io.Reader, error) {
	conn, err := net.DialTimeout("unix", d.sock, 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	lr, _, err := client.Handshake(conn, proto.Hello{Version: proto.Version, Mode: proto.ModeAttach,
		Term: "xterm-256color", Cols: cols, Rows: rows})
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, lr.Reader(), nil
}

// firstOutput reads frames until the first output frame, or an exit frame.
func firstOutput(r io.Reader) (exit string, err error) {
	buf := make([]byte, 64<<10)
	for {
		typ, p, err := proto.ReadFrame(r, buf)
		if err != nil {
			return "", err
		}
		switch typ {
		case proto.FrameOutput:
			return "", nil
		case proto.FrameExit:
			return string(p), nil
		}
	}
}

func (d *driver) attachCycles(n int) error {
	for i := range n {
		if _, err := d.settle(0); err != nil { // the last cycle's client is gone
			return err
		}
		conn, r, err := d.attachHello(120, 40)
		if err != nil {
			return fmt.Errorf("cycle %d: attach: %w", i+1, err)
		}
		if exit, err := firstOutput(r); err != nil || exit != "" {
			conn.Close()
			return fmt.Errorf("cycle %d: no first frame: %v %s", i+1, err, exit)
		}
		if i%2 == 0 {
			// tcell's first output comes before the client is counted:
			// detach until it is.
			for {
				var res proto.DetachResult
				if err := d.call("detach", nil, &res); err != nil {
					conn.Close()
					return fmt.Errorf("cycle %d: detach: %w", i+1, err)
				}
				if res.Detached > 0 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			for {
				exit, err := firstOutput(r)
				if err != nil {
					conn.Close()
					return fmt.Errorf("cycle %d: no exit frame after detach: %w", i+1, err)
				}
				if exit != "" {
					break
				}
			}
		}
		conn.Close()
	}
	fmt.Printf("cycles %d\n", n)
	_, err := d.settle(0)
	return err
}

func (d *driver) clients(n, cols, rows int) error {
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	refused := 0
	var lastRefusal string
	for range n {
		conn, _, err := d.attachHello(cols, rows)
		if err != nil {
			var pe *proto.Error
			if errors.As(err, &pe) {
				refused++
				lastRefusal = pe.Message
				continue
			}
			return err
		}
		conns = append(conns, conn) // never read from here on
	}
	fmt.Printf("attached %d refused %d\n", len(conns), refused)
	if lastRefusal != "" {
		fmt.Printf("refusal %s\n", lastRefusal)
	}
	if _, err := d.settle(len(conns)); err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // let every client draw (or try to draw) its frames
	if err := d.printStats("attached", len(conns)); err != nil {
		return err
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	if _, err := d.settle(0); err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // the server returns freed memory a second after the last client left
	return d.printStats("closed", 0)
}

func (d *driver) conns(n int) error {
	var conns []net.Conn
	failed := 0
	for range n {
		c, err := net.DialTimeout("unix", d.sock, 5*time.Second)
		if err != nil {
			failed++
			continue
		}
		conns = append(conns, c)
	}
	time.Sleep(time.Second)
	for _, c := range conns {
		c.Close()
	}
	fmt.Printf("opened %d failed %d\n", len(conns), failed)
	return nil
}

func (d *driver) waits(n, m int) error {
	var conns []*client.Client
	for range n {
		c, err := client.Dial(d.sock)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		for range m {
			go func() {
				_ = c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, Match: "never-printed-1b9f", NoTimeout: true}, nil)
			}()
		}
	}
	// The waits are in when the server's goroutines stop growing: wait for
	// at least one per wait beyond the start.
	before, err := d.stats()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for before.Goroutines < n*m && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if before, err = d.stats(); err != nil {
			return err
		}
	}
	st, err := d.stats()
	if err != nil {
		return err
	}
	fmt.Printf("waiting fds %d goroutines %d rss_kib %d heap_kib %d panes %d clients %d conns %d\n",
		st.FDs, st.Goroutines, st.RSSBytes>>10, st.HeapBytes>>10, st.Panes, st.Clients, st.Conns)
	for _, c := range conns {
		c.Close()
	}
	return d.printStats("closed", 0)
}

func (d *driver) hugeSize() error {
	conn, r, err := d.attachHello(65535, 65535)
	if err != nil {
		fmt.Printf("refused %v\n", err)
	} else {
		if _, err := firstOutput(r); err != nil {
			conn.Close()
			return err
		}
		if err := proto.WriteFrame(conn, proto.FrameResize, proto.ResizePayload(65535, 65535)); err != nil {
			conn.Close()
			return err
		}
		time.Sleep(2 * time.Second)
		if err := d.printStats("huge", 1); err != nil {
			conn.Close()
			return err
		}
		conn.Close()
	}
	if _, err := d.settle(0); err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // the server returns freed memory a second after the last client left
	return d.printStats("closed", 0)
}
