package server

import (
	"context"
	"testing"

	"github.com/melmux/melmux/internal/proto"
)

func TestDebugStatsCountsTheProcess(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	var st proto.DebugStats
	if err := c.Call(context.Background(), "debug_stats", nil, &st); err != nil {
		t.Fatal(err)
	}
	// This test process is the server: its figures are at least what the
	// test itself holds open.
	if st.FDs < 3 || st.Goroutines < 2 || st.RSSBytes <= 0 || st.HeapBytes == 0 || st.FDLimit == 0 {
		t.Fatalf("implausible figures: %+v", st)
	}
	if st.Panes != 1 || st.Clients != 0 || st.Conns != 1 {
		t.Fatalf("panes/clients/conns: %+v, want 1/0/1", st)
	}
}
