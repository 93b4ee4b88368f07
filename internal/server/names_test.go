package server

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

func TestShortCommand(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"/bin/bash"}, "bash"},
		{[]string{"/usr/bin/python3", "-m", "http.server"}, "python3 -m http.server"},
		{[]string{"sleep", "600"}, "sleep 600"},
		{[]string{"/bin/sh", "-c", "make test && echo ok"}, "make test && echo ok"},
		{[]string{"bash", "-c", "  /usr/bin/make   -j8\techo  "}, "make -j8 echo"},
		{[]string{"sh", "-c", "for f in *.go; do gofmt -l $f; done; echo all formatted"}, "for f in *.go; do gofmt -l $f; d…"},
		{[]string{"sh", "-c", "echo one\necho two"}, "echo one …"},
		{[]string{"sh", "-c", ""}, "sh"},
		{[]string{"sh", "-i"}, "sh -i"},
		{[]string{"python3", "-c", "print(1)"}, "python3 -c print(1)"},
	} {
		if got := shortCommand(tc.argv); got != tc.want {
			t.Errorf("shortCommand(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

// Borders and tab names say `sh`, not `/bin/sh`, and a shell command line
// by what it runs.
func TestBorderAndTabNames(t *testing.T) {
	t.Parallel()
	s, c := startServer(t) // its shell is /bin/sh
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "tab", Command: "sleep 600; echo done", NoWait: true, Focus: true}, nil); err != nil {
		t.Fatal(err)
	}
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30)}
	s.mu.Lock()
	for _, e := range s.panes {
		e.agentDo(func() { e.kindAt = time.Now() }) // no foreground lookup: a fork not yet exec'd would name the test binary
	}
	s.mu.Unlock()
	sc, _ := s.scene(viewer)
	if len(sc.Tabs) != 2 || sc.Tabs[0].Name != "sh" || sc.Tabs[1].Name != "sleep 600; echo done" {
		t.Fatalf("tab names: %+v", sc.Tabs)
	}
	if len(sc.Panes) != 1 || sc.Panes[0].Command != "sleep 600; echo done" {
		t.Fatalf("the border of pane 2: %+v", sc.Panes)
	}
}
