package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/bench/streams"
)

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
