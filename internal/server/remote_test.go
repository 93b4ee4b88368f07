package server

import (
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/pane/term"
)

// A remote pane's border names its host, and while the link is down says
// since when; a local pane's border is left alone.
func TestRemoteBorder(t *testing.T) {
	since := time.Now().Add(-time.Minute)
	e := &paneEntry{link: &paneLink{host: "build1", command: "claude", state: proto.LinkDisconnected, since: since}}
	pv := ui.PaneView{Command: "melmux __remote build1 -- claude", State: "idle"}
	remoteBorderLocked(e, &pv)
	if pv.Command != "build1: claude" || pv.State != "disconnected since "+since.Format("15:04:05") || !pv.Alert {
		t.Fatalf("disconnected: command %q, state %q, in the attention colour %v", pv.Command, pv.State, pv.Alert)
	}
	e.link.state = proto.LinkConnected
	pv = ui.PaneView{State: "working"}
	remoteBorderLocked(e, &pv)
	if pv.State != "working" || pv.Alert {
		t.Fatalf("connected: the state %q is not the pane's own", pv.State)
	}
	local := ui.PaneView{Command: "sh", State: "idle"}
	remoteBorderLocked(&paneEntry{}, &local)
	if local.Command != "sh" || local.State != "idle" {
		t.Fatalf("a local pane's border changed: %+v", local)
	}
}

// A repaint draws the screen it was made of on an emulator showing
// something else: text, colours, the cursor and the modes.
func TestRepaintDrawsTheScreen(t *testing.T) {
	src := term.New(20, 4, term.Options{})
	src.Write([]byte("\x1b[?2004hhello\r\n\x1b[31mred\x1b[0m and \x1b[1mbold\r\nthird"))
	dst := term.New(20, 4, term.Options{})
	dst.Write([]byte("old junk\r\nmore junk"))
	dst.Write(repaint(src.Snapshot()))
	a, b := src.Snapshot(), dst.Snapshot()
	if strings.Join(src.Lines(), "|") != strings.Join(dst.Lines(), "|") {
		t.Fatalf("repainted %q, want %q", dst.Lines(), src.Lines())
	}
	if a.Cursor != b.Cursor || a.Modes != b.Modes {
		t.Fatalf("cursor %+v modes %+v, want %+v %+v", b.Cursor, b.Modes, a.Cursor, a.Modes)
	}
	for y := range a.Cells {
		for x := range a.Cells[y] {
			if a.Cells[y][x] != b.Cells[y][x] && !(blankCell(a.Cells[y][x]) && blankCell(b.Cells[y][x])) {
				t.Fatalf("cell %d,%d: %+v, want %+v", x, y, b.Cells[y][x], a.Cells[y][x])
			}
		}
	}
}

func blankCell(c term.Cell) bool {
	return (c.Rune == 0 || c.Rune == ' ') && c.BG == term.ColorDefault && c.Attr == 0
}
