package pane

import "testing"

// A pane whose program has ended lets go of its emulator at the next Trim
// and still shows its last screen; one whose program runs keeps it.
func TestTrimRetiresAnEndedPane(t *testing.T) {
	live := start(t, 80, 24, "sh", "-c", "echo running; exec sleep 600")
	ended := start(t, 80, 24, "sh", "-c", "echo the last words")
	waitExit(t, ended)
	live.Trim()
	ended.Trim()
	if live.Term().Retired() {
		t.Error("a running pane's emulator was retired")
	}
	if !ended.Term().Retired() {
		t.Fatal("an ended pane's emulator was kept")
	}
	if !screenHas(ended, "the last words") || !ended.Term().Retired() {
		t.Errorf("the ended pane's screen: %q", ended.Term().Lines())
	}
}
