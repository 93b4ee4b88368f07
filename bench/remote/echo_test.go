package main

import (
	"bytes"
	"os/exec"
	"testing"
	"time"
	"unicode/utf8"
)

// The keys are distinct, two bytes each, and none is inside another's
// bytes: the first time one shows after it was typed is its echo.
func TestKeysAreDistinctTwoByteLetters(t *testing.T) {
	ks, err := keys(400)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, k := range ks {
		if len(k) != 2 || !utf8.Valid(k) || seen[string(k)] {
			t.Fatalf("key %q: not a distinct two-byte letter", k)
		}
		seen[string(k)] = true
	}
	if _, err := keys(5000); err == nil {
		t.Fatal("keys(5000) gave more keys than the alphabet holds")
	}
}

// Nearest-rank percentiles never report a latency no key had.
func TestSummarizeNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	s := summarize(d, 2)
	if s.p50 != 50*time.Millisecond || s.p90 != 90*time.Millisecond || s.p99 != 99*time.Millisecond || s.max != 100*time.Millisecond || s.lost != 2 || s.n != 100 {
		t.Fatalf("summary of 1..100 ms: %+v", s)
	}
	if s := summarize(nil, 3); s.n != 0 || s.lost != 3 {
		t.Fatalf("summary of nothing: %+v", s)
	}
}

// A key's echo through a PTY is found after the mark taken before it was
// typed, with the time of the read that brought it.
func TestKeyTermFindsTheEcho(t *testing.T) {
	k, err := startKeyTerm(exec.Command("sh", "-c", "stty raw -echo; echo ready; exec cat"), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer k.close()
	if _, err := k.await(0, []byte("ready"), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	ks, _ := keys(3)
	lat, lost, err := typeKeys(t.Context(), k, ks, 0)
	if err != nil || lost != 0 || len(lat) != 3 {
		t.Fatalf("three keys: %v lost %d, %v", lat, lost, err)
	}
	if !bytes.Contains([]byte(tailOf(k)), bytes.Join(ks, nil)) {
		t.Fatalf("the echo: %q", tailOf(k))
	}
}
