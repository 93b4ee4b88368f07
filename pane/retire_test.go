package pane

import (
	"testing"
	"time"
)

// waitScreen waits until the pane's screen shows s.
func waitScreen(t *testing.T, p *Pane, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !screenHas(p, s) {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q: %q", s, p.Term().Lines())
		}
		select {
		case <-p.Changed():
		case <-time.After(time.Second):
		}
	}
}

// A pane whose program has ended lets go of its emulator at the next Trim
// and still shows its last screen.
func TestTrimRetiresAnEndedPane(t *testing.T) {
	ended := start(t, 80, 24, "sh", "-c", "echo the last words")
	waitExit(t, ended)
	ended.Trim()
	if !ended.Term().Retired() {
		t.Fatal("an ended pane's emulator was kept")
	}
	if !screenHas(ended, "the last words") || !ended.Term().Retired() {
		t.Errorf("the ended pane's screen: %q", ended.Term().Lines())
	}
}

// A live pane quiet at its prompt lets go of its emulator at the next Trim
// too, and what it prints next (the echo of what is typed, its answer)
// lands where it would have: after the prompt, in the prompt's colour
// where the program left the pen, the cursor after it.
func TestTrimRetiresAQuietLivePane(t *testing.T) {
	p := start(t, 80, 24, "sh", "-c", `printf 'ready\n\033[1;32m$ '; read line; printf '%s!\n' "$line"; exec sleep 600`)
	waitScreen(t, p, "$")
	p.Trim()
	if !p.Term().Retired() {
		t.Fatal("a quiet live pane's emulator was kept")
	}
	if err := p.Type([]byte("hello\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "hello!")
	lines := p.Term().Lines()
	if lines[1] != "$ hello" || lines[2] != "hello!" {
		t.Errorf("after the thaw the screen reads %q", lines[:4])
	}
	snap := p.Term().Snapshot()
	if c := snap.Cells[1][2]; c.Rune != 'h' || c.Attr == 0 {
		t.Errorf("the echo after the prompt: %+v, want it in the prompt's pen (bold green)", c)
	}
	if cur := p.Term().Cursor(); cur.X != 0 || cur.Y != 3 {
		t.Errorf("the cursor is at %d,%d, want 0,3", cur.X, cur.Y)
	}
	// Quiet again, it retires again.
	p.Trim()
	if !p.Term().Retired() || !screenHas(p, "hello!") {
		t.Errorf("quiet again: retired %v, screen %q", p.Term().Retired(), p.Term().Lines()[:4])
	}
}
