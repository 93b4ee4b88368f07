package server

import (
	"net"

	"github.com/melmux/melmux/internal/proto"
)

// client is one attached terminal.
type client struct {
	conn net.Conn
}

// exit tells the client why it must leave and closes it.
func (c *client) exit(reason string) {
	// Best effort: the client may already be gone.
	_ = proto.WriteFrame(c.conn, proto.FrameExit, []byte(reason))
	_ = c.conn.Close()
}

// invalidate marks the attached clients' screens stale.
func (s *Server) invalidate() {}

func (s *Server) invalidateLocked() {}

func (s *Server) serveAttach(c net.Conn, lr *proto.LineReader, hello proto.Hello) {
	_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version,
		Error: errorf(proto.CodeFailed, "attach mode is not available in this build")})
}
