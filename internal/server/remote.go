package server

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/pane/term"
)

// paneLink is a pane's part in a pane on another host (docs/remote.md). On
// the local session's side the pane runs `melmux __remote`, which draws the
// host's pane and reports the link (remote_link); on the host's side the
// session owns the real pane and takes its typing as a numbered stream
// (pane_input), so what is sent again after a dropped link is typed once.
type paneLink struct {
	// Guarded by Server.mu: the local side.
	host    string
	command string // what runs on the host, as shown in borders
	state   string // proto.Link*
	since   time.Time
	err     string
	session string        // the host's session that owns the pane
	ch      chan struct{} // closed and replaced on every report
	// What the host's session says the pane runs; nil until it said.
	fg *proto.RemoteForeground
	// placed: a lead's placement put an agent here (remote_place.go),
	// local panes included, whose link has no host.
	placed bool
	// What the pane's processes use on the host, as last told
	// (remote_usage.go), and when a local list_panes last asked.
	usage   *proto.RemoteUsage
	usageAt time.Time
	askedAt time.Time
	usageCh chan struct{} // closed and replaced when a usage is told; nil until asked
	// The link's round trip in milliseconds as last told (pings over its
	// ssh channel); 0 until this connection measured one.
	rttMS float64

	// The host's side: the input stream typed so far. Its own lock, held
	// across the write, orders two calls of one stream.
	inMu     sync.Mutex // guards stream and received
	stream   string
	received int64
}

// linkLocked is the pane's link, made on first use.
func (e *paneEntry) linkLocked() *paneLink {
	if e.link == nil {
		e.link = &paneLink{ch: make(chan struct{})}
	}
	return e.link
}

// remoteForegroundLocked puts what the host's session says a remote pane
// runs in place of what a lookup found here, where the pane's process is
// melmux __remote: kind detection and explain see the host's program.
// Caller holds the pane's agent lock.
func remoteForegroundLocked(e *paneEntry, r *foreground) {
	fg := e.remoteFg
	if fg == nil || e.remoteHost == "" || r.pgrp == 0 {
		return
	}
	r.fg, r.kind, r.why, r.pid = fg.Program, fg.Kind, "", 0
	if r.kind != "" {
		r.why = "on " + e.remoteHost + ": " + fg.Why
	}
}

// remoteInfoLocked fills a list_panes row's host.
func remoteInfoLocked(e *paneEntry, info *proto.PaneInfo) {
	if l := e.link; l != nil && l.host != "" {
		h := l.host
		info.Host = &h
		if l.command != "" {
			info.Command = l.command
		}
	}
}

// remoteBorderLocked makes a remote pane's border say where it runs and,
// while its link is down, since when.
func remoteBorderLocked(e *paneEntry, pv *ui.PaneView) {
	l := e.link
	if l == nil || l.host == "" {
		return
	}
	pv.Command = l.host + ": " + l.command
	if pv.Exited {
		return
	}
	switch l.state {
	case proto.LinkDisconnected:
		pv.State, pv.Alert = "disconnected since "+clock(l.since), true
	case proto.LinkConnecting:
		pv.State = "connecting"
	}
}

// clock says when, as a person reads it on a border: the time of day,
// with the date when it is not today.
func clock(t time.Time) string {
	if y, m, d := t.Date(); time.Now().Day() != d || time.Now().Month() != m || time.Now().Year() != y {
		return t.Format("Jan 2 15:04:05")
	}
	return t.Format("15:04:05")
}

// linkRefusal is why typing into a pane whose link is not up is refused.
func linkRefusal(id int, l *paneLink) error {
	switch l.state {
	case proto.LinkConnected:
		return nil
	case proto.LinkDisconnected:
		return fmt.Errorf("pane %d runs on %s, disconnected since %s (%s): melmux is reconnecting; nothing typed was sent", id, l.host, clock(l.since), or(l.err, "the link dropped"))
	case proto.LinkFailed:
		return fmt.Errorf("pane %d runs on %s, which melmux cannot reach: %s", id, l.host, or(l.err, "the link failed"))
	}
	return fmt.Errorf("pane %d is still connecting to %s: nothing typed was sent", id, l.host)
}

// remoteAgentRefusalLocked is why a message for the melmux worker of pane
// id, on a host whose link is not up, is refused rather than queued: it
// would wait unseen for as long as the link is down, and a lead is better
// told, to send it again or elsewhere.
func remoteAgentRefusalLocked(id int, e *paneEntry) error {
	l := e.link
	if l == nil || l.host == "" {
		return nil
	}
	switch l.state {
	case proto.LinkConnected:
		return nil
	case proto.LinkDisconnected:
		return errorf(proto.CodeFailed, "send_agent: the worker in pane %d runs on %s, disconnected since %s (%s): melmux is reconnecting, and the worker goes on with what it had; the message was not queued: send it again once `melmux hosts` says %s is connected",
			id, l.host, clock(l.since), or(l.err, "the link dropped"), l.host)
	case proto.LinkFailed:
		return errorf(proto.CodeFailed, "send_agent: the worker in pane %d runs on %s, which melmux cannot reach (%s): the message was not queued", id, l.host, or(l.err, "the link failed"))
	}
	return errorf(proto.CodeFailed, "send_agent: the worker in pane %d is still connecting to %s: the message was not queued", id, l.host)
}

// repaint draws scr from nothing on a terminal that shows something else:
// the screen a mirror shows when the bytes it missed are no longer kept.
func repaint(scr *term.Screen) []byte {
	var b strings.Builder
	if scr.Modes.AltScreen {
		b.WriteString("\x1b[?1049h")
	} else {
		b.WriteString("\x1b[?1049l")
	}
	b.WriteString("\x1b[0m\x1b[H\x1b[2J")
	var pen term.Cell
	for y, row := range scr.Cells {
		b.WriteString("\x1b[" + strconv.Itoa(y+1) + ";1H")
		for x, c := range row {
			if c.Width == 0 {
				continue
			}
			if y == scr.Rows-1 && x == scr.Cols-1 {
				// Drawing the last cell would wrap, and scroll, on some
				// terminals; a blank one needs no drawing.
				if c.Rune == 0 || c.Rune == ' ' {
					break
				}
			}
			if c.FG != pen.FG || c.BG != pen.BG || c.Attr != pen.Attr {
				b.WriteString(sgr(c))
				pen = c
			}
			r := c.Rune
			if r == 0 {
				r = ' '
			}
			b.WriteRune(r)
			b.WriteString(c.Comb)
		}
	}
	b.WriteString("\x1b[0m")
	if scr.Title != "" {
		b.WriteString("\x1b]2;" + printable(scr.Title) + "\x07")
	}
	m := scr.Modes
	for _, mode := range []struct {
		on  bool
		num string
	}{{m.AppCursor, "1"}, {m.BracketedPaste, "2004"}, {m.MouseX10, "9"}, {m.MouseButton, "1000"}, {m.MouseDrag, "1002"},
		{m.MouseMotion, "1003"}, {m.MouseSGR, "1006"}, {m.FocusEvents, "1004"}, {!m.CursorHidden, "25"}} {
		if mode.on {
			b.WriteString("\x1b[?" + mode.num + "h")
		} else {
			b.WriteString("\x1b[?" + mode.num + "l")
		}
	}
	if m.AppKeypad {
		b.WriteString("\x1b=")
	} else {
		b.WriteString("\x1b>")
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH", scr.Cursor.Y+1, scr.Cursor.X+1)
	return []byte(b.String())
}

// sgr sets the pen of cell c from the default one.
func sgr(c term.Cell) string {
	p := []string{"0"}
	for _, a := range []struct {
		bit  term.Attr
		code string
	}{{term.AttrBold, "1"}, {term.AttrDim, "2"}, {term.AttrItalic, "3"}, {term.AttrUnderline, "4"},
		{term.AttrBlink, "5"}, {term.AttrReverse, "7"}, {term.AttrHidden, "8"}, {term.AttrStrike, "9"}} {
		if c.Attr&a.bit != 0 {
			p = append(p, a.code)
		}
	}
	p = append(p, colour(c.FG, "38")...)
	p = append(p, colour(c.BG, "48")...)
	return "\x1b[" + strings.Join(p, ";") + "m"
}

func colour(c term.Color, base string) []string {
	if i, ok := c.Index(); ok {
		return []string{base, "5", strconv.Itoa(int(i))}
	}
	if r, g, b, ok := c.RGB(); ok {
		return []string{base, "2", strconv.Itoa(int(r)), strconv.Itoa(int(g)), strconv.Itoa(int(b))}
	}
	return nil
}

// or is s, or else def when s is empty.
func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
