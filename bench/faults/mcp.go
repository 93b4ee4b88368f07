package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// mcpLineBytes is the attack's line: under `melmux mcp`'s line limit
// (96 MiB and its envelope), so it is read and decoded, but far over every
// argument limit, so the tool refuses it.
const mcpLineBytes = 95 << 20

// mcpOverlongBytes is a line over the limit, which is refused unread.
const mcpOverlongBytes = 200 << 20

// mcpContentBytes is a legitimate call's size: write_file's content limit.
const mcpContentBytes = 32 << 20

// mcp runs the attacks on `melmux mcp`, each in a fresh
// process, and prints its peak resident memory (VmHWM) once it has
// answered: one 95 MiB line, six of them pipelined, a 200 MiB line, and a
// legitimate 32 MiB write_file with --base-tools.
func (d *driver) mcp(bin string) error {
	send := func(text string) []byte {
		return callLine(1, "send_keys", map[string]any{"pane": 1, "text": text})
	}
	big := send(strings.Repeat("x", mcpLineBytes-len(send(""))+1))
	for _, sc := range []struct {
		label string
		lines [][]byte
		base  bool
		want  string // in every answer
	}{
		{"mcp_idle", nil, false, ""},
		{"mcp_line", [][]byte{big}, false, "over the limit"},
		{"mcp_pipelined", [][]byte{big, big, big, big, big, big}, false, "over the limit"},
		{"mcp_overlong", [][]byte{append(bytes.Repeat([]byte("x"), mcpOverlongBytes), '\n')}, false, "-32700"},
		{"mcp_write_file", [][]byte{callLine(1, "write_file", map[string]any{"path": "big.txt",
			"content": strings.Repeat("a line of text\n", mcpContentBytes/15)})}, true, "created big.txt"},
	} {
		hwm, answers, err := mcpRun(bin, sc.base, sc.lines)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.label, err)
		}
		for i, a := range answers {
			if !strings.Contains(a, sc.want) {
				return fmt.Errorf("%s: answer %d is %s, want it to hold %q", sc.label, i+1, clipText(a, 300), sc.want)
			}
		}
		first := ""
		if len(answers) > 0 {
			first = clipText(summary(answers[0]), 100)
		}
		// The answer last and unquoted: the script takes the rest of the line.
		fmt.Printf("%s lines %d line_mib %d hwm_kib %d answer %s\n", sc.label, len(sc.lines), lineMiB(sc.lines), hwm,
			strings.Join(strings.Fields(first), " "))
	}
	return nil
}

func lineMiB(lines [][]byte) int {
	if len(lines) == 0 {
		return 0
	}
	return len(lines[0]) >> 20
}

func callLine(id int, tool string, args map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		panic(err) // plain values
	}
	return append(b, '\n')
}

// summary says what an answer is: a JSON-RPC error's code and message, or
// the text of a tool's result, marked when the tool failed.
func summary(answer string) string {
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(answer), &m) != nil {
		return answer
	}
	if m.Error != nil {
		return fmt.Sprintf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	text := ""
	if len(m.Result.Content) > 0 {
		text = m.Result.Content[0].Text
	}
	if m.Result.IsError {
		return "tool error: " + text
	}
	return "result: " + text
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// mcpRun starts `bin mcp`, initialises it, writes lines (each its own id)
// while reading one answer per line, and returns the process's VmHWM in KiB
// with the answers.
func mcpRun(bin string, base bool, lines [][]byte) (int, []string, error) {
	args := []string{"mcp"}
	dir, err := os.MkdirTemp("", "melmux-faults-mcp")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(dir)
	if base {
		args = append(args, "--base-tools")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	out := bufio.NewReader(stdout)
	lineOut := func() (string, error) {
		s, err := out.ReadString('\n')
		return strings.TrimSpace(s), err
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"faults","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return 0, nil, err
	}
	if a, err := lineOut(); err != nil || !strings.Contains(a, `"result"`) {
		return 0, nil, fmt.Errorf("initialize: %q %v", a, err)
	}
	werr := make(chan error, 1)
	go func() {
		for i, l := range lines {
			// Each line its own id, so no answer stands for another.
			l = bytes.Replace(l, []byte(`"id":1,`), []byte(`"id":`+strconv.Itoa(i+1)+`,`), 1)
			if _, err := stdin.Write(l); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	var answers []string
	for range lines {
		a, err := lineOut()
		if err != nil {
			return 0, nil, fmt.Errorf("after %d answers: %v", len(answers), err)
		}
		answers = append(answers, a)
	}
	if err := <-werr; err != nil {
		return 0, nil, err
	}
	hwm, err := vmHWM(cmd.Process.Pid)
	return hwm, answers, err
}

// vmHWM reads a process's peak resident set size in KiB.
func vmHWM(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
