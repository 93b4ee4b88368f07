package remote

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/melmux/melmux/internal/proto"
)

// A worker agent on a host (spawn-agent --host) belongs to the local
// session: the lead sends it turns and reads its replies there, as for a
// local worker. So its control connection is the local session's: the
// bridge listens on a socket of the host (ForwardSocket) that the worker is
// given as its MELMUX_SOCKET, and every connection to it travels inside the
// ssh channel, as frames, to the local side, which dials the local
// session's socket for it. A worker's control traffic is a few JSON lines a
// turn, so the frames carry no flow control beyond a bounded queue per
// connection. The connections last as long as the ssh channel that carries
// them.

// agentSetup is the first frame of a worker's first connection: the
// environment it needs that must not be on a command line (its task, the
// provider's key), and the local pane and session it belongs to.
type agentSetup struct {
	Env     []string `json:"env"`
	Pane    int      `json:"pane"`
	Session string   `json:"session"`
}

// ForwardSocket is where the host's bridge for session listens for the
// worker's control connections: beside the host's sessions' sockets, with
// a name `melmux ls` does not take for a session.
func ForwardSocket(session string) string {
	return filepath.Join(proto.SocketDir(), session+".up")
}

// listenForward listens at path, in place of a socket an earlier bridge of
// the session left (its ssh channel may not have ended yet).
func listenForward(path string) (*net.UnixListener, error) {
	// The first session on a host has not made the directory yet; it
	// is made as a session's server makes it, and held to the same rules.
	dir := filepath.Dir(path)
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return nil, err
	}
	if err := proto.CheckSocketDir(dir); err != nil {
		return nil, err
	}
	_ = os.Remove(path)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	// An earlier bridge closing late must not take a later one's socket.
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// fwdQueue bounds the writes held for one forwarded connection whose
// reader does not keep up: past it the connection is dropped.
const fwdQueue = 256

// mux carries connections over one ssh channel's frames, at either end.
type mux struct {
	fw *frameWriter

	mu     sync.Mutex
	conns  map[uint32]*muxConn
	closed bool
}

type muxConn struct {
	c    net.Conn
	q    chan []byte
	once sync.Once
}

func newMux(fw *frameWriter) *mux {
	return &mux{fw: fw, conns: map[uint32]*muxConn{}}
}

// add carries c as connection id: what c sends goes out as data frames,
// ending with a close frame; data frames for id are written to c. With
// announce, the other end is told first to open its side.
func (m *mux) add(id uint32, c net.Conn, announce bool) {
	mc := &muxConn{c: c, q: make(chan []byte, fwdQueue)}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = c.Close()
		return
	}
	m.conns[id] = mc
	m.mu.Unlock()
	if announce {
		if err := m.fw.write(frameConnOpen, connID(id, nil)); err != nil {
			m.remove(id)
			return
		}
	}
	go func() {
		for p := range mc.q {
			if _, err := c.Write(p); err != nil {
				m.remove(id)
				_ = m.fw.write(frameConnClose, connID(id, nil))
				return
			}
		}
	}()
	go func() {
		b := make([]byte, 32<<10)
		for {
			n, err := c.Read(b)
			if n > 0 {
				if m.fw.write(frameConnData, connID(id, b[:n])) != nil {
					m.remove(id)
					return
				}
			}
			if err != nil {
				if m.remove(id) {
					_ = m.fw.write(frameConnClose, connID(id, nil))
				}
				return
			}
		}
	}()
}

// data queues p for connection id; an unknown id was closed here already.
func (m *mux) data(p []byte) {
	id, data, err := splitConnID(p)
	if err != nil {
		return
	}
	m.mu.Lock()
	mc := m.conns[id]
	if mc == nil {
		m.mu.Unlock()
		return
	}
	select {
	case mc.q <- append([]byte(nil), data...):
		m.mu.Unlock()
	default:
		m.mu.Unlock()
		m.remove(id)
		_ = m.fw.write(frameConnClose, connID(id, nil))
	}
}

// closeFrame ends connection id at the other end's word.
func (m *mux) closeFrame(p []byte) {
	if id, _, err := splitConnID(p); err == nil {
		m.remove(id)
	}
}

// remove ends connection id here; it says whether it was still open.
func (m *mux) remove(id uint32) bool {
	m.mu.Lock()
	mc := m.conns[id]
	delete(m.conns, id)
	m.mu.Unlock()
	if mc == nil {
		return false
	}
	mc.once.Do(func() {
		close(mc.q)
		_ = mc.c.Close()
	})
	return true
}

// closeAll ends every connection: the channel that carried them is gone.
func (m *mux) closeAll() {
	m.mu.Lock()
	m.closed = true
	ids := make([]uint32, 0, len(m.conns))
	for id := range m.conns {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	for _, id := range ids {
		m.remove(id)
	}
}

func connID(id uint32, data []byte) []byte {
	b := make([]byte, 4+len(data))
	binary.BigEndian.PutUint32(b, id)
	copy(b[4:], data)
	return b
}

func splitConnID(p []byte) (uint32, []byte, error) {
	if len(p) < 4 {
		return 0, nil, errors.New("frame too short for its connection")
	}
	return binary.BigEndian.Uint32(p), p[4:], nil
}

// serveForward accepts the worker's connections on ln for m until ln
// closes.
func serveForward(ln net.Listener, m *mux) {
	var id uint32
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		id++
		m.add(id, c, true)
	}
}
