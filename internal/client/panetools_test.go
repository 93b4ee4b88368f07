package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWriteScreenCountsBlankRuns(t *testing.T) {
	lines := []string{"top", "", "", "next", "", "", "", "", "   ", "footer"}
	var b strings.Builder
	writeScreen(&b, lines)
	want := "--- screen ---\ntop\n\n\nnext\n(5 blank rows)\nfooter\n--- end ---\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestOwnPaneRefusedBeforeDialling(t *testing.T) {
	pt := &PaneTools{Socket: "/nonexistent/melmux.sock", Target: 4}
	for _, name := range []string{"send_agent", "read_agent", "send_keys"} {
		_, err := pt.Call(context.Background(), name, json.RawMessage(`{"pane":4,"text":"hi"}`))
		if !errors.Is(err, ErrOwnPane) || !strings.Contains(err.Error(), name+": pane 4") {
			t.Errorf("%s to own pane: %v", name, err)
		}
	}
	// Another pane goes on to the session (here: none).
	if _, err := pt.Call(context.Background(), "read_agent", json.RawMessage(`{"pane":5}`)); errors.Is(err, ErrOwnPane) {
		t.Errorf("pane 5 refused as own pane")
	}
}

// A screen larger than a tool result may be keeps its bottom rows, saying
// how many rows above were left out; an overlong row is cut and says so.
func TestWriteScreenBoundsHugeScreens(t *testing.T) {
	row := strings.Repeat("x", 1990) + "é" + strings.Repeat("y", 9) // 2001 bytes: one row of a 2000-column screen
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = fmt.Sprintf("%04d%s", i, row)
	}
	lines[999] = "$" + strings.Repeat("é", 2500) // cut at 2048 bytes, inside an é
	var b strings.Builder
	writeScreen(&b, lines)
	out := b.String()
	if len(out) > maxScreenBytes+200 {
		t.Fatalf("screen of %d bytes", len(out))
	}
	kept := strings.Count(out, row)
	if !strings.Contains(out, fmt.Sprintf("(%d rows above left out: ", 999-kept)) || kept < 20 {
		t.Errorf("kept %d rows; head %q", kept, out[:200])
	}
	if !strings.HasSuffix(out, "éé… (2954 more bytes)\n--- end ---\n") || !strings.Contains(out, "0998"+row) {
		t.Errorf("tail %q", out[len(out)-200:])
	}
	if !utf8.ValidString(out) {
		t.Errorf("a row was cut inside a rune")
	}
}
