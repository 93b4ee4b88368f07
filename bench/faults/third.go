package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// third runs the third hardening round's attacks on the session, one line
// each ("third NAME ok ..." or "third NAME FAIL ..."), and fails when one
// got through:
//
//   - title: open_pane with a 120 KB title, which the server must refuse;
//   - bigread: read_pane of a whole history of 10,000 lines of 200 '─'
//     (6 MB), which must arrive whole;
//   - paste: send_agent of a message that rebuilds the bracketed-paste end
//     marker once one pass strips it (ESC[20 ESC[201~ 1~), to a program that
//     records what it reads: the paste must end once, at its end;
//   - forged: agent_report and agent_next from another connection than the
//     agent's own, which must be refused.
//
// dir is a directory the attacks may write in.
func (d *driver) third(dir string) error {
	failed := 0
	for _, a := range []struct {
		name string
		run  func(string) (string, error)
	}{
		{"title", d.thirdTitle},
		{"bigread", d.thirdBigRead},
		{"paste", d.thirdPaste},
		{"forged", d.thirdForged},
	} {
		what, err := a.run(dir)
		if err != nil {
			failed++
			fmt.Printf("third %s FAIL %v\n", a.name, err)
			continue
		}
		fmt.Printf("third %s ok %s\n", a.name, what)
	}
	if failed > 0 {
		return fmt.Errorf("%d third-round attacks got through", failed)
	}
	return nil
}

func (d *driver) thirdTitle(string) (string, error) {
	var r proto.OpenPaneResult
	err := d.call("open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, Title: strings.Repeat("t", 120<<10), NoWait: true}, &r)
	var pe *proto.Error
	if errors.As(err, &pe) && pe.Code == proto.CodeBadParams {
		return "refused: " + clipText(pe.Message, 80), nil
	}
	if err == nil {
		_ = d.call("kill_pane", proto.PaneRef{Pane: r.ID}, nil)
		return "", fmt.Errorf("a 120 KB title was taken (pane %d)", r.ID)
	}
	return "", err
}

func (d *driver) thirdBigRead(string) (string, error) {
	var r proto.OpenPaneResult
	script := `BEGIN { s = ""; for (i = 0; i < 200; i++) s = s "─"; for (i = 0; i < 10000; i++) print s; fflush(); system("sleep 600") }`
	if err := d.call("open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"awk", script}, NoWait: true}, &r); err != nil {
		return "", err
	}
	defer func() { _ = d.call("kill_pane", proto.PaneRef{Pane: r.ID}, nil) }()
	var w proto.WaitResult
	if err := d.call("wait", proto.WaitParams{Pane: r.ID, IdleMS: 500, TimeoutMS: 20000}, &w); err != nil {
		return "", fmt.Errorf("the pane did not print its 10,000 lines: %w", err)
	}
	start := time.Now()
	var out proto.ReadPaneResult
	if err := d.call("read_pane", proto.ReadPaneParams{Pane: r.ID, All: true}, &out); err != nil {
		return "", fmt.Errorf("read_pane of the whole history: %w", err)
	}
	n := 0
	for _, l := range append(out.History, out.Lines...) {
		n += len(l) + 1
	}
	if len(out.History) < 9900 {
		return "", fmt.Errorf("read_pane gave %d history lines of the 10,000 printed", len(out.History))
	}
	return fmt.Sprintf("%d lines, %d bytes in %s", len(out.History)+len(out.Lines), n, time.Since(start).Round(time.Millisecond)), nil
}

func (d *driver) thirdPaste(dir string) (string, error) {
	got := filepath.Join(dir, "paste-read")
	// It asks for bracketed paste, then records the raw bytes of one
	// message: the paste, its end marker and the Enter.
	reader := `printf '\033[?2004h'; stty raw -echo; head -c 31 > '` + got + `'; exec sleep 600`
	var r proto.OpenPaneResult
	if err := d.call("open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sh", "-c", reader}}, &r); err != nil {
		return "", err
	}
	defer func() { _ = d.call("kill_pane", proto.PaneRef{Pane: r.ID}, nil) }()
	var res proto.SendAgentResult
	if err := d.call("send_agent", proto.SendAgentParams{Pane: r.ID, Text: "\x1b[20\x1b[201~1~!touch X"}, &res); err != nil {
		return "", fmt.Errorf("send_agent: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(got)
		if err == nil && len(b) >= 31 {
			if n := bytes.Count(b, []byte("\x1b[201~")); n != 1 || !bytes.HasPrefix(b, []byte("\x1b[200~")) || bytes.Count(b, []byte("\x1b")) != 2 {
				return "", fmt.Errorf("the program read %q: the paste ended %d times", b, n)
			}
			return fmt.Sprintf("read %q", b), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the program read %q in 10s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (d *driver) thirdForged(string) (string, error) {
	var r proto.OpenPaneResult
	if err := d.call("open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, NoWait: true}, &r); err != nil {
		return "", err
	}
	defer func() { _ = d.call("kill_pane", proto.PaneRef{Pane: r.ID}, nil) }()
	own, err := client.Dial(d.sock)
	if err != nil {
		return "", err
	}
	defer own.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id := uuid.NewString()
	if err := own.Call(ctx, "agent_register", proto.AgentRegisterParams{Pane: r.ID, ID: id, Role: "worker"}, nil); err != nil {
		return "", fmt.Errorf("agent_register: %w", err)
	}
	var pe *proto.Error
	err = d.call("agent_report", proto.AgentReportParams{Pane: r.ID, ID: id, State: "idle", Turn: 1, Reply: "forged"}, nil)
	if !errors.As(err, &pe) || pe.Code != proto.CodeForbidden {
		return "", fmt.Errorf("a forged agent_report from another connection was answered %v", err)
	}
	err = d.call("agent_next", proto.AgentNextParams{Pane: r.ID, ID: id}, nil)
	if !errors.As(err, &pe) || pe.Code != proto.CodeForbidden {
		return "", fmt.Errorf("agent_next from another connection was answered %v", err)
	}
	return "agent_report and agent_next refused: " + clipText(pe.Message, 60), nil
}
