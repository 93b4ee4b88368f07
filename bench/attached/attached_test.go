package main

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/bench/streams"
)

// The end of a stream is found even when the marker's first letter comes
// split across two reads of the PTY, and the bytes before it are counted.
func TestTerminalFindsMarkerSplitAcrossReads(t *testing.T) {
	first := []byte(marker)[:1]
	rest := []byte(marker)[1:]
	// printf's octal escapes write the marker's first byte, then, after a
	// pause that makes it a separate read, the rest.
	script := `printf 'abc\` + octal(first[0]) + `'; sleep 0.2; printf '%s' "$1"; sleep 5`
	term, err := startTerminal(exec.Command("sh", "-c", script, "sh", string(rest)), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer term.close()
	at, err := term.await(context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if at.IsZero() {
		t.Error("await returned no time")
	}
	if n := term.total(); n < int64(3+len(marker)) {
		t.Errorf("counted %d bytes, want at least %d", n, 3+len(marker))
	}
	_ = term.cmd.Process.Kill()
}

func TestTerminalWithoutMarkerTimesOut(t *testing.T) {
	term, err := startTerminal(exec.Command("sh", "-c", "printf 'plain ASCII only'; sleep 5"), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer term.close()
	if _, err := term.await(context.Background(), 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "not drawn") {
		t.Errorf("await = %v, want a timeout", err)
	}
	_ = term.cmd.Process.Kill()
}

func octal(b byte) string {
	return string([]byte{'0' + b>>6, '0' + (b>>3)&7, '0' + b&7})
}

func TestNoStreamHoldsTheMarker(t *testing.T) {
	for _, kind := range []string{"plain", "sgr", "cursor", "ink"} {
		b, err := streams.Generate(kind, 200_000)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), marker[:2]) {
			t.Errorf("stream %s holds the marker's first letter", kind)
		}
	}
}

func TestFlagsNameWhatIsWrong(t *testing.T) {
	for args, want := range map[string]string{
		"-kinds plain,clears": `-kinds: unknown "clears" (allowed: plain, sgr, cursor, ink)`,
		"-mux screen":         `-mux: unknown "screen"`,
		"-runs 0":             "-runs 0",
		"-kinds ,":            "-kinds is empty",
		"extra":               `unexpected arguments "extra"`,
	} {
		_, err := parseFlags(strings.Fields(args), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to say %q", args, err, want)
		}
	}
	c, err := parseFlags([]string{"-kinds", "ink, plain,ink", "-mux", "tmux"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.kinds, ",") != "ink,plain" || strings.Join(c.muxes, ",") != "tmux" {
		t.Errorf("kinds %v muxes %v, want [ink plain] [tmux]", c.kinds, c.muxes)
	}
}

func TestTableGivesMediansAndRatios(t *testing.T) {
	cfg := config{kinds: []string{"plain"}, muxes: []string{"melmux", "tmux"}}
	res := map[string]map[string][]result{"plain": {
		"melmux": {{wall: time.Second, server: 500 * time.Millisecond}, {wall: 3 * time.Second, server: time.Second}, {wall: 2 * time.Second, server: time.Second}},
		"tmux":   {{wall: 4 * time.Second, server: 2 * time.Second, drawn: 5e6}},
	}}
	var b strings.Builder
	writeTable(&b, cfg, res, map[string]int64{"plain": 20e6})
	// melmux: median 2 s wall = 10 MB/s, 1 s CPU = 20 MB/s; tmux 5 and 10.
	if want := "| plain | 10.0 / 5.0 | **2.00** | 20.0 / 10.0 | **2.00** | 0 / 0 | 0.00 / 5.00 |"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the row\n%s", b.String(), want)
	}
}
