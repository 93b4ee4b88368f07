package server

import (
	"testing"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/term"
)

// proto holds the session size limits without importing the emulator; they
// must stay its screen limits plus the status line.
func TestSessionSizeLimitsAreTheEmulators(t *testing.T) {
	if proto.MaxSessionCols != term.MaxCols || proto.MaxSessionRows != term.MaxRows+1 {
		t.Errorf("proto's limits %dx%d, the emulator's %dx%d plus the status line", proto.MaxSessionCols, proto.MaxSessionRows, term.MaxCols, term.MaxRows)
	}
}
