package muxenv

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const testMarker = "ЖΩЖ done"

// The end of a stream is found even when the marker's first letter comes
// split across two reads of the PTY, and the bytes before it are counted.
func TestTerminalFindsMarkerSplitAcrossReads(t *testing.T) {
	first := []byte(testMarker)[:1]
	rest := []byte(testMarker)[1:]
	// printf's octal escapes write the marker's first byte, then, after a
	// pause that makes it a separate read, the rest.
	script := `printf 'abc\` + octal(first[0]) + `'; sleep 0.2; printf '%s' "$1"; sleep 5`
	term, err := StartTerminal(exec.Command("sh", "-c", script, "sh", string(rest)), 80, 24, testMarker[:2])
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	at, err := term.Await(context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if at.IsZero() {
		t.Error("Await returned no time")
	}
	if n := term.Total(); n < int64(3+len(testMarker)) {
		t.Errorf("counted %d bytes, want at least %d", n, 3+len(testMarker))
	}
	_ = term.Cmd.Process.Kill()
}

func TestTerminalWithoutMarkerTimesOut(t *testing.T) {
	term, err := StartTerminal(exec.Command("sh", "-c", "printf 'plain ASCII only'; sleep 5"), 80, 24, testMarker[:2])
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	if _, err := term.Await(context.Background(), 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "not drawn") {
		t.Errorf("Await = %v, want a timeout", err)
	}
	_ = term.Cmd.Process.Kill()
}

func octal(b byte) string {
	return string([]byte{'0' + b>>6, '0' + (b>>3)&7, '0' + b&7})
}
