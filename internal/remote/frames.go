// Package remote runs panes on other hosts over the system's ssh
// (docs/remote.md). The local pane runs `melmux __remote` (Link): it brings
// melmux to the host when missing (Ensure), and runs `melmux __bridge` there
// (Bridge) over `ssh HOST`, whose stdio carries frames: the host's pane's
// output from an offset, its typing as a numbered stream, resizes. The host's
// own melmux session owns the pane, so a dropped link leaves it running;
// the local side reconnects with a backoff and asks from the offset it had,
// and the local server hears of the link's state (remote_link).
//
// It uses the standard library, x/sys and the control protocol only: it is
// linked into melmux, which every CLI call starts.
package remote

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/melmux/melmux/internal/proto"
)

// Frames over the ssh channel: proto.WriteFrame's type, length, payload.
const (
	// host → local
	frameHello   byte = 'H' // JSON hello: the session, the pane, how much typing it took
	frameOutput  byte = 'O' // 8-byte offset after the data, then the data
	frameRepaint byte = 'R' // as frameOutput, the data drawing the screen afresh
	frameAck     byte = 'A' // 8 bytes: how much of the typing stream the pane took
	framePing    byte = 'P' // nothing new: the link is alive
	frameExit    byte = 'X' // JSON proto.RemoteExit: the program ended, all output sent
	frameError   byte = 'E' // JSON failure: the bridge cannot go on
	frameFore    byte = 'F' // JSON proto.RemoteForeground: what the pane runs now, when it changed
	frameUsage   byte = 'U' // JSON proto.RemoteUsage: what the pane's processes use, answering frameQuery

	// local → host
	frameInput  byte = 'I' // 8-byte stream offset of the data, then the data
	frameResize byte = 'W' // proto.ResizePayload: the pane's size
	frameKill   byte = 'K' // end the host's session: the local pane is closing
	frameSetup  byte = 'S' // JSON agentSetup, first of all with --agent --new
	frameQuery  byte = 'Q' // what do the pane's processes use? (melmux top, here)

	// both ways: the link's round trip. The local side sends its clock
	// (8 bytes) and the host sends the frame straight back.
	frameRTT byte = 'T'

	// both ways: a worker agent's control connections (forward.go)
	frameResume byte = 'r' // JSON resume: how far this end of the relay read
	frameMsg    byte = 'm' // a relayed message: 8-byte number, kind, 4-byte connection id, bytes
	frameMsgAck byte = 'k' // 8 bytes: the last relayed message taken
)

// hello opens the stream from the host.
type hello struct {
	Session  string `json:"session"`
	Pane     int    `json:"pane"`
	Received int64  `json:"received"` // typing taken of the stream so far
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
}

// failure is why a bridge stopped. Gone says the host's session or pane is
// no more, which no reconnection mends.
type failure struct {
	Message string `json:"message"`
	Gone    bool   `json:"gone,omitempty"`
}

func (f failure) Error() string { return f.Message }

// frameWriter writes whole frames from several goroutines.
type frameWriter struct {
	mu sync.Mutex // guards w: one frame at a time
	w  io.Writer
}

func (fw *frameWriter) write(typ byte, payload []byte) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return proto.WriteFrame(fw.w, typ, payload)
}

// withOffset prefixes data with an offset.
func withOffset(off int64, data []byte) []byte {
	b := make([]byte, 8+len(data))
	binary.BigEndian.PutUint64(b, uint64(off))
	copy(b[8:], data)
	return b
}

// splitOffset undoes withOffset.
func splitOffset(p []byte) (int64, []byte, error) {
	if len(p) < 8 {
		return 0, nil, errors.New("frame too short for its offset")
	}
	return int64(binary.BigEndian.Uint64(p)), p[8:], nil
}
