package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// cutBench runs a remote pane printing tick-1, tick-2... every 250 ms
// across a cut of the link c.cut long, and reports what the issue asks of
// it: the drop seen, typing refused while down and never reaching the
// host, the reconnection, every line shown here exactly once.
func cutBench(ctx context.Context, c config, h *host, local env, stdout, stderr io.Writer) error {
	_, _ = local.run(ctx, "kill-server")
	if _, err := local.run(ctx, "new", "-d", "-x", "120", "-y", "40"); err != nil {
		return err
	}
	defer func() { _, _ = local.run(context.Background(), "kill-server") }()
	ticks := int((c.cut+40*time.Second)/(250*time.Millisecond)) + 1
	prog := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do i=$((i+1)); echo tick-$i; sleep 0.25; done; echo fin""ished; exec cat`, ticks)
	out, err := local.run(ctx, "open-pane", "--host", "h1", "--", "sh", "-c", prog)
	if err != nil {
		return err
	}
	id := strings.TrimSpace(out)
	if err := local.waitPane(ctx, id, "tick-8\n", time.Minute); err != nil {
		return err
	}

	fmt.Fprintf(stderr, "cutting the link for %s...\n", c.cut)
	if err := h.setLink(false); err != nil {
		return err
	}
	cut := time.Now()
	linkBack := func() { _ = h.setLink(true) }
	defer linkBack()
	var seen time.Duration
	for {
		if st, _ := hostState(ctx, local); st == "disconnected" {
			seen = time.Since(cut)
			break
		}
		if time.Since(cut) > c.cut {
			return fmt.Errorf("melmux did not see the link down within the %s cut", c.cut)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, typeErr := local.run(ctx, "send-keys", "-t", id, `echo typed-while-""down<Enter>`)
	refusal := "accepted (not refused!)"
	if typeErr != nil {
		refusal = typeErr.Error()
		// The CLI's error, without the command line run prefixes.
		if i := strings.LastIndex(refusal, ": pane "); i >= 0 {
			refusal = refusal[i+2:]
		}
	}
	select {
	case <-time.After(time.Until(cut.Add(c.cut))):
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := h.setLink(true); err != nil {
		return err
	}
	back := time.Now()
	var reconnect time.Duration
	for {
		if st, _ := hostState(ctx, local); st == "connected" {
			reconnect = time.Since(back)
			break
		}
		if time.Since(back) > 3*time.Minute {
			return fmt.Errorf("melmux did not reconnect within 3 minutes of the link coming back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := local.waitPane(ctx, id, "\nfinished", 3*time.Minute); err != nil {
		return err
	}
	screen, err := local.run(ctx, "read-pane", "-t", id, "--all")
	if err != nil {
		return err
	}
	count := map[string]int{}
	for _, ln := range strings.Split(screen, "\n") {
		count[ln]++
	}
	missing, twice := 0, 0
	for i := 1; i <= ticks; i++ {
		switch n := count[fmt.Sprintf("tick-%d", i)]; {
		case n == 0:
			missing++
		case n > 1:
			twice++
		}
	}
	// The refused typing reached neither screen.
	reached := strings.Contains(screen, "typed-while-down")
	if hs := hostSessions(h, local.bin); len(hs) == 1 {
		cmd := exec.Command(local.bin, "read-pane", "-s", hs[0], "-t", "1", "--all")
		cmd.Env = h.env
		if b, err := cmd.Output(); err == nil && strings.Contains(string(b), "typed-while-down") {
			reached = true
		}
	}
	fmt.Fprintf(stdout, "\nnetwork cut of %s (a line every 250 ms, %d lines):\n\n", c.cut, ticks)
	fmt.Fprintf(stdout, "- the drop seen after %s (`melmux hosts`: disconnected)\n", seen.Round(time.Millisecond))
	fmt.Fprintf(stdout, "- typing while down: %s\n", refusal)
	fmt.Fprintf(stdout, "- the typing refused reached the host: %v\n", reached)
	fmt.Fprintf(stdout, "- reconnected %s after the link came back\n", reconnect.Round(time.Millisecond))
	fmt.Fprintf(stdout, "- lines shown here: %d of %d, %d missing, %d more than once\n", ticks-missing, ticks, missing, twice)
	return nil
}

// hostSessions are the host user's melmux sessions, as `melmux ls` there
// lists them (the host's filesystem is this machine's).
func hostSessions(h *host, bin string) []string {
	cmd := exec.Command(bin, "ls", "--json")
	cmd.Env = h.env
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var sessions []struct{ Name string }
	_ = json.Unmarshal(out, &sessions)
	var names []string
	for _, s := range sessions {
		names = append(names, s.Name)
	}
	return names
}
