package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
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
