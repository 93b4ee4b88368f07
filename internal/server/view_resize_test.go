package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/proto"
)

// The output of a verb typed at the ":" prompt is wrapped again when the
// client's terminal is resized: after a resize from 100 to 50 columns the
// view shows the line it had on top, in rows of 50.
func TestOutputViewRewrapsOnClientResize(t *testing.T) {
	t.Parallel()
	_, conn, cl := attachedToOnePane(t, 100, 30)
	var lines []string
	for i := range 40 {
		// 120 cells: two rows at 100 columns, three at 50.
		lines = append(lines, fmt.Sprintf("%02d:", i)+strings.Repeat(string(rune('a'+i%26)), 117))
	}
	cl.showOutput(strings.Join(lines, "\n"))
	block := func(rows ...string) string { return "\n" + strings.Join(rows, "\n") + "\n" }
	l := func(i, from, to int) string { return lines[i][from:min(to, len(lines[i]))] }
	// The top row of the view follows the pane's title row; the view's
	// position covers its right end.
	onTop := func(i int) string { return "─\n" + l(i, 0, 40) }
	waitShown(t, cl, onTop(0))
	waitShown(t, cl, block(l(0, 100, 120)+strings.Repeat(" ", 80), l(1, 0, 100)))
	// Down scrolls the view a row at a time: four put line 2 on top.
	if err := proto.WriteFrame(conn, proto.FrameInput, []byte(strings.Repeat("\x1b[B", 4))); err != nil {
		t.Fatal(err)
	}
	waitShown(t, cl, onTop(2))
	if err := proto.WriteFrame(conn, proto.FrameResize, proto.ResizePayload(50, 30)); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, cl, 50, 30)
	waitShown(t, cl, block(l(2, 50, 100), l(2, 100, 120)+strings.Repeat(" ", 30), l(3, 0, 50)))
	if !strings.Contains(shownOn(cl), onTop(2)) {
		t.Fatalf("after the resize line 2 is not on top; the client shows:\n%s", shownOn(cl))
	}
}
