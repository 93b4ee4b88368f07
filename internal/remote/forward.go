package remote

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/melmux/melmux/internal/proto"
)

// A worker agent on a host (spawn-agent --host) belongs to the local
// session: the lead sends it turns and reads its replies there, as for a
// local worker. So its control connections are the local session's: they
// go to a socket of the host (ForwardSocket), which the worker is given as
// its MELMUX_SOCKET, and travel inside the pane's ssh channel to the local
// side, which dials the local session's socket for each.
//
// A dropped link must not end them: the session would take the worker
// for exited, and a lead waiting on its turn would be told so. So they are
// held, at either end, by a process that outlives any one ssh channel: on
// the host the worker's parent, `melmux __worker` (Worker), which the
// worker connects to; here the link (`melmux __remote`), which dials the
// session. Between the two a relay carries what the connections carry as
// numbered messages (a connection opened, bytes, a connection closed),
// each kept by its sender until the other end acknowledged it. A new
// channel starts with each end saying how far it read (frameResume), and
// each sends again what the other did not take: every message arrives
// once, in order, however many channels it took. The host's bridge passes
// these frames between its ssh channel and the worker's parent
// (RelaySocket).

// agentSetup is the first frame of a worker's first connection: the
// environment it needs that must not be on a command line (its task, the
// provider's key), and the local pane and session it belongs to.
type agentSetup struct {
	Env     []string `json:"env"`
	Pane    int      `json:"pane"`
	Session string   `json:"session"`
}

// ForwardSocket is where the worker of the host's session connects for its
// control connections: beside the host's sessions' sockets, with a name
// `melmux ls` does not take for a session.
func ForwardSocket(session string) string {
	return filepath.Join(proto.SocketDir(), session+".up")
}

// RelaySocket is where the worker's parent takes the bridge of the
// session's current ssh channel.
func RelaySocket(session string) string {
	return filepath.Join(proto.SocketDir(), session+".relay")
}

// listenSocket listens at path, in place of a socket a process of the
// session left behind.
func listenSocket(path string) (*net.UnixListener, error) {
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
	return net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
}

// Kinds of relayed message.
const (
	relOpen  byte = 'o' // the host's worker connected: dial the session
	relData  byte = 'd' // bytes of the connection
	relClose byte = 'c' // that end of the connection closed
)

// relMsg is one relayed message, numbered from 1 by its sender.
type relMsg struct {
	seq  uint64
	kind byte
	id   uint32
	data []byte
}

func (m relMsg) frame() []byte {
	b := make([]byte, 13+len(m.data))
	binary.BigEndian.PutUint64(b, m.seq)
	b[8] = m.kind
	binary.BigEndian.PutUint32(b[9:], m.id)
	copy(b[13:], m.data)
	return b
}

func parseMsg(p []byte) (relMsg, error) {
	if len(p) < 13 {
		return relMsg{}, errors.New("relayed message too short")
	}
	return relMsg{seq: binary.BigEndian.Uint64(p), kind: p[8], id: binary.BigEndian.Uint32(p[9:]), data: p[13:]}, nil
}

// resume opens a channel at either end of a relay. A process that starts
// anew holds none of the connections its predecessor held, so an end
// whose peer's epoch changed drops its own and counts from nothing again.
type resume struct {
	Epoch    string `json:"epoch"`    // this end's
	Peer     string `json:"peer"`     // the peer's epoch that Received counts
	Received uint64 `json:"received"` // the last message taken from it
}

// relOutLimit bounds the bytes sent that the other end has not
// acknowledged: past it the connections are not read until it took some,
// so a link down for long holds up the worker's calls, not memory.
const relOutLimit = 8 << 20

// relay is one end of the connections' relay.
type relay struct {
	epoch string
	// dial opens this end of a connection the other end announced; nil
	// at the end that accepts them.
	dial func() (net.Conn, error)

	mu       sync.Mutex // guards the fields below and each relConn's
	cond     *sync.Cond // on mu: out shrank, a message or a channel came or went
	ch       *relChannel
	peer     string
	out      []relMsg // sent, not acknowledged
	outBytes int
	seq      uint64 // the last message numbered here
	in       uint64 // the last message taken from the other end
	conns    map[uint32]*relConn
	nextID   uint32
	closed   bool
}

// relChannel is the relay's frames over one ssh channel.
type relChannel struct {
	fw        *frameWriter
	live      bool   // the other end said how far it read
	sent      uint64 // the last message written on this channel
	ackDue    bool
	resumeDue bool
}

func newRelay(dial func() (net.Conn, error)) *relay {
	r := &relay{epoch: randomID(), dial: dial, conns: map[uint32]*relConn{}}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// attach makes fw the relay's channel, in place of any other: it says how
// far this end read, then sends what the other end lacks once it said the
// same.
func (r *relay) attach(fw *frameWriter) *relChannel {
	ch := &relChannel{fw: fw, resumeDue: true}
	locked(&r.mu, func() {
		r.ch = ch
		r.cond.Broadcast()
	})
	go r.pump(ch)
	return ch
}

// detach ends ch; what it did not deliver goes on the next.
func (r *relay) detach(ch *relChannel) {
	locked(&r.mu, func() {
		if r.ch == ch {
			r.ch = nil
		}
		r.cond.Broadcast()
	})
}

// pump writes ch's frames, outside the lock: a channel that blocks (a
// dead network fills ssh's buffers) must not hold up reading the other.
func (r *relay) pump(ch *relChannel) {
	for {
		frames, ok := r.due(ch)
		if !ok {
			return
		}
		for _, f := range frames {
			if err := ch.fw.write(f.typ, f.p); err != nil {
				return // its owner sees the channel end too
			}
		}
	}
}

// relFrame is a frame pump writes.
type relFrame struct {
	typ byte
	p   []byte
}

// due waits until ch has frames to write, and takes them as written; ok
// is false once ch is not the relay's channel, or the relay closed.
func (r *relay) due(ch *relChannel) (frames []relFrame, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !r.closed && r.ch == ch && !ch.resumeDue && !ch.ackDue && !(ch.live && ch.sent < r.seq) {
		r.cond.Wait()
	}
	if r.closed || r.ch != ch {
		return nil, false
	}
	if ch.resumeDue {
		b, _ := json.Marshal(resume{Epoch: r.epoch, Peer: r.peer, Received: r.in})
		frames = append(frames, relFrame{frameResume, b})
		ch.resumeDue = false
	}
	if ch.live {
		for _, m := range r.out {
			if m.seq > ch.sent {
				frames = append(frames, relFrame{frameMsg, m.frame()})
			}
		}
		ch.sent = r.seq
	}
	if ch.ackDue {
		frames = append(frames, relFrame{frameMsgAck, withOffset(int64(r.in), nil)})
		ch.ackDue = false
	}
	return frames, true
}

// onResume takes the other end's frameResume on ch.
func (r *relay) onResume(ch *relChannel, p []byte) {
	var res resume
	if json.Unmarshal(p, &res) != nil || res.Epoch == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch != ch {
		return
	}
	if r.peer != "" && r.peer != res.Epoch {
		r.resetLocked()
	}
	r.peer = res.Epoch
	var received uint64
	if res.Peer == r.epoch {
		received = res.Received
	}
	r.trimLocked(received)
	ch.live, ch.sent = true, received
	r.cond.Broadcast()
}

// onAck takes the other end's acknowledgement on ch.
func (r *relay) onAck(ch *relChannel, p []byte) {
	n, _, err := splitOffset(p)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch == ch && ch.live {
		r.trimLocked(uint64(n))
		r.cond.Broadcast()
	}
}

// onMsg takes a message of the other end's on ch: the next one, once.
func (r *relay) onMsg(ch *relChannel, p []byte) {
	m, err := parseMsg(p)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch != ch || m.seq != r.in+1 {
		return // an old channel's, or sent again and taken already
	}
	r.in = m.seq
	ch.ackDue = true
	r.cond.Broadcast()
	rc := r.conns[m.id]
	switch m.kind {
	case relOpen:
		if r.dial == nil || rc != nil {
			return
		}
		rc = &relConn{r: r, id: m.id}
		r.conns[m.id] = rc
		go rc.run(nil)
	case relData:
		if rc != nil {
			rc.q = append(rc.q, append([]byte(nil), m.data...))
		}
	case relClose:
		if rc != nil {
			delete(r.conns, m.id)
			rc.ending = true
		}
	}
}

// trimLocked forgets the messages the other end took, up to n.
func (r *relay) trimLocked(n uint64) {
	i := 0
	for i < len(r.out) && r.out[i].seq <= n {
		r.outBytes -= len(r.out[i].data)
		i++
	}
	if i > 0 {
		r.out = append(r.out[:0], r.out[i:]...)
	}
}

// resetLocked drops every connection and message: the other end is a
// new process, which holds none of them.
func (r *relay) resetLocked() {
	for id, rc := range r.conns {
		delete(r.conns, id)
		rc.ending, rc.q = true, nil
	}
	r.out, r.outBytes, r.seq, r.in = nil, 0, 0, 0
	r.cond.Broadcast()
}

// send numbers a message and queues it for the other end, waiting while
// too much is unacknowledged.
func (r *relay) send(kind byte, id uint32, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !r.closed && r.outBytes > relOutLimit {
		r.cond.Wait()
	}
	if r.closed {
		return
	}
	r.seq++
	r.out = append(r.out, relMsg{seq: r.seq, kind: kind, id: id, data: append([]byte(nil), data...)})
	r.outBytes += len(data)
	r.cond.Broadcast()
}

// accept carries c, a connection made at this end, to the other.
func (r *relay) accept(c net.Conn) {
	rc := r.newConn()
	if rc == nil {
		_ = c.Close()
		return
	}
	r.send(relOpen, rc.id, nil) // before any of its bytes
	go rc.run(c)
}

// newConn numbers a connection made at this end; nil once the relay closed.
func (r *relay) newConn() *relConn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.nextID++
	rc := &relConn{r: r, id: r.nextID}
	r.conns[rc.id] = rc
	return rc
}

// drop forgets connection id here; it says whether it was still open.
func (r *relay) drop(id uint32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rc := r.conns[id]
	if rc == nil {
		return false
	}
	delete(r.conns, id)
	rc.ending, rc.q = true, nil
	r.cond.Broadcast()
	return true
}

// close ends the relay and every connection it holds.
func (r *relay) close() {
	locked(&r.mu, func() {
		r.closed = true
		for id, rc := range r.conns {
			delete(r.conns, id)
			rc.ending, rc.q = true, nil
		}
		r.cond.Broadcast()
	})
}

// relConn is one relayed connection at this end.
type relConn struct {
	r  *relay
	id uint32
	// Guarded by r.mu: bytes for c, in order, and whether c is to be
	// closed once they are written.
	q      [][]byte
	ending bool
}

// run writes what the other end sends to c (dialled first when nil), and
// reads what c sends for the other end.
func (rc *relConn) run(c net.Conn) {
	r := rc.r
	if c == nil {
		var err error
		if c, err = r.dial(); err != nil {
			if r.drop(rc.id) {
				r.send(relClose, rc.id, nil)
			}
			return
		}
	}
	defer c.Close()
	go func() {
		b := make([]byte, 32<<10)
		for {
			n, err := c.Read(b)
			if n > 0 {
				r.send(relData, rc.id, b[:n])
			}
			if err != nil {
				if r.drop(rc.id) {
					r.send(relClose, rc.id, nil)
				}
				return
			}
		}
	}()
	for {
		p, ok := rc.next()
		if !ok {
			return // ending, or closed: c closes
		}
		if _, err := c.Write(p); err != nil {
			if r.drop(rc.id) {
				r.send(relClose, rc.id, nil)
			}
			return
		}
	}
}

// next waits for the bytes the other end sent for c next; ok is false
// once none will come (the connection ends, or the relay closed).
func (rc *relConn) next() (p []byte, ok bool) {
	r := rc.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(rc.q) == 0 && !rc.ending && !r.closed {
		r.cond.Wait()
	}
	if len(rc.q) == 0 {
		return nil, false
	}
	p = rc.q[0]
	rc.q = rc.q[1:]
	return p, true
}
