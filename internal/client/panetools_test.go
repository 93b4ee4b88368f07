package client

import (
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
