package server

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A program flipping its status report (OSC 7501) between working and done
// every 50 ms for 3 s is told about at most once a second: the first change
// at once, the next ones merged into one told when the second is over, with
// how many it stands for in the OSC 9 text and $MELMUX_AGENT_MERGED.
// Without the limit each of its 30 finished turns rang.
func TestFlappingPaneIsNotifiedOncePerSecond(t *testing.T) {
	out := filepath.Join(t.TempDir(), "notified")
	s, c := startServer(t, func(cfg *Config) {
		cfg.Agents = AgentsConfig{Bell: true, OSC9: true, NotifyCommand: `echo "$MELMUX_AGENT_STATE $MELMUX_AGENT_MERGED" >> ` + out}
	})
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	s.withLock(func() { s.clients[viewer] = struct{}{} })
	t.Cleanup(func() { s.withLock(func() { delete(s.clients, viewer) }) })
	start := time.Now()
	newPane(t, c, "sh", "-c", `i=0
while [ $i -lt 30 ]; do
	printf '\033]7501;state=working:app=claude-code\033\\'; sleep 0.05
	printf '\033]7501;state=done:app=claude-code\033\\'; sleep 0.05
	i=$((i+1))
done
echo flapped; exec sleep 600`)
	waitLine(t, c, 1, `^flapped$`)
	// The last change held back is told within a second of the flapping's end.
	var e *paneEntry
	s.withLock(func() { e = s.panes[1] })
	deadline := time.Now().Add(10 * time.Second)
	for {
		var held bool
		s.withLock(func() { held = e.notify.pending != nil || e.notify.timer != nil })
		if !held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a notification is still held back 10s after the flapping ended")
		}
		time.Sleep(20 * time.Millisecond) // a timer's end has no channel to wait on
	}
	took := time.Since(start)
	viewer.msgMu.Lock()
	notes := string(viewer.notes)
	viewer.msgMu.Unlock()
	bells := strings.Count(notes, "\a")
	most := int(took/DefaultNotifyEvery) + 2
	t.Logf("%d notifications in %s of flapping (%s)", bells, took.Round(time.Millisecond), notes)
	if bells < 2 || bells > most {
		t.Fatalf("%d bells in %s: want 2 to %d, one a second at most", bells, took.Round(time.Millisecond), most)
	}
	if n := strings.Count(notes, "\x1b]9;"); n != bells {
		t.Errorf("%d OSC 9 notifications for %d bells", n, bells)
	}
	merged := regexp.MustCompile(`finished its turn \((\d+) more changes merged\)`).FindAllStringSubmatch(notes, -1)
	if len(merged) == 0 {
		t.Fatalf("no notification says how many changes it merged: %q", notes)
	}
	// notify_command ran once per notification, with the merged count.
	var lines []string
	for deadline := time.Now().Add(10 * time.Second); ; {
		raw, _ := os.ReadFile(out)
		lines = strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) >= bells {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notify_command ran %d times for %d notifications: %q", len(lines), bells, lines)
		}
		time.Sleep(20 * time.Millisecond) // a command runs on its own; its file is all there is to watch
	}
	sum := 0
	for _, l := range lines {
		f := strings.Fields(l)
		n, err := strconv.Atoi(f[len(f)-1])
		if len(f) != 2 || err != nil {
			t.Fatalf("notify_command wrote %q, want STATE MERGED", l)
		}
		sum += n
	}
	if len(lines) != bells || sum == 0 || !strings.Contains(strings.Join(lines, "\n"), merged[len(merged)-1][1]) {
		t.Errorf("notify_command wrote %q for %d notifications, the last merging %s", lines, bells, merged[len(merged)-1][1])
	}
}
