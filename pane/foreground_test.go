package pane

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// The foreground group is the one the shell puts a job in: the shell's own
// while it waits at its prompt (here: running `read`), the job's while it
// runs.
func TestForegroundGroup(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", "read x; exec sleep 30")
	pid := p.Status().PID
	if g := p.ForegroundGroup(); g != pid {
		t.Fatalf("ForegroundGroup = %d, want the shell's group %d", g, pid)
	}
	if argv := p.Foreground(); len(argv) == 0 || argv[0] != "sh" {
		t.Fatalf("Foreground = %q, want sh's argv", argv)
	}
	p.Kill(time.Second)
	waitExit(t, p)
	if g := p.ForegroundGroup(); g != 0 {
		t.Errorf("ForegroundGroup after the exit = %d, want 0", g)
	}
}

// LastInput counts what is typed or written, not the emulator's replies to
// the program's queries.
func TestLastInput(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", `printf '\033[c'; read x; echo "got=$x"; read y`)
	if !p.LastInput().IsZero() {
		t.Fatalf("LastInput before any input = %s", p.LastInput())
	}
	// The DA1 query is answered by the emulator: still no input.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.WaitSettled(ctx, time.Now(), 100*time.Millisecond, time.Second, 5*time.Second)
	if !p.LastInput().IsZero() {
		t.Fatalf("a terminal reply counted as input: %s", p.LastInput())
	}
	before := time.Now()
	if err := p.Type([]byte("1\r")); err != nil {
		t.Fatal(err)
	}
	if at := p.LastInput(); at.Before(before) {
		t.Fatalf("LastInput %s is before Type at %s", at, before)
	}
	typed := p.LastInput()
	if err := p.Write([]byte(strconv.Itoa(2) + "\r")); err != nil {
		t.Fatal(err)
	}
	if !p.LastInput().After(typed) && !p.LastInput().Equal(typed) {
		t.Fatalf("LastInput went back after Write: %s < %s", p.LastInput(), typed)
	}
}
