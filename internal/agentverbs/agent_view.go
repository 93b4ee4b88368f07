package agentverbs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/orchestrator"
	"github.com/melmux/melmux/toolexec"
)

// lineObserver shows a turn as text: the assistant's words as they stream,
// each tool call as one line (name and compact arguments) and its result as
// one line under it.
type lineObserver struct {
	w     io.Writer
	color bool   // dim the tool lines
	onLeg func() // after each leg (the REPL redraws its footer)
	// maxCalls is the agent's CallLimit: a leg asking for more is said to
	// have calls not run, which the observer is not shown one by one.
	maxCalls int
	mu       sync.Mutex // guards mid, width and writes to w
	mid      bool       // the last text written did not end a line
	width    int        // lines are cut to this many columns; 0 = 100
}

// setWidth cuts the lines from now on to n columns: the REPL's terminal
// was resized, while the turn's goroutine may be writing.
func (o *lineObserver) setWidth(n int) {
	locked(&o.mu, func() { o.width = n })
}

func (o *lineObserver) Text(s string) {
	s = client.Visible(s)
	o.mu.Lock()
	defer o.mu.Unlock()
	io.WriteString(o.w, s)
	o.mid = !strings.HasSuffix(s, "\n")
}

func (o *lineObserver) LegDone(_ int, r orchestrator.Reply) {
	o.end()
	if r.Cut && len(r.Calls) == 0 {
		o.line(orchestrator.CutNote)
	}
	if n := len(r.Calls); o.maxCalls > 0 && n > o.maxCalls {
		o.line(fmt.Sprintf("✗ this leg asked for %d tool calls and %d run in one leg (max_calls in [agent]): %d answered \"not run\"", n, o.maxCalls, n-o.maxCalls))
	}
	if o.onLeg != nil {
		o.onLeg()
	}
}

func (o *lineObserver) CallStart(c orchestrator.ToolCall) {
	o.line("▸ " + c.Name + " " + compactArgs(c.Arguments))
}

func (o *lineObserver) CallDone(c orchestrator.ToolCall, res toolexec.Result, took time.Duration) {
	mark := "  ⎿ "
	if res.IsError {
		mark = "  ✗ "
	}
	first, rest, _ := strings.Cut(strings.TrimSpace(res.Text), "\n")
	more := ""
	if n := strings.Count(rest, "\n") + 1; rest != "" {
		more = fmt.Sprintf(" (+%d lines)", n)
	}
	o.line(fmt.Sprintf("%s%s %s%s · %s", mark, c.Name, took.Round(time.Millisecond), more, first))
}

// end finishes a line the streamed text left open.
func (o *lineObserver) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.mid {
		io.WriteString(o.w, "\n")
		o.mid = false
	}
}

func (o *lineObserver) line(s string) {
	o.end()
	o.mu.Lock()
	defer o.mu.Unlock()
	width := o.width
	if width <= 0 {
		width = 100
	}
	s = cutColumns(s, width)
	if o.color {
		s = "\x1b[2m" + s + "\x1b[0m"
	}
	io.WriteString(o.w, s+"\n")
}

// cutColumns shortens s to at most n runes, marking the cut.
func cutColumns(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// compactArgs renders a call's JSON arguments as key=value pairs in the
// order the model wrote them, long strings shortened.
func compactArgs(arguments string) string {
	dec := json.NewDecoder(strings.NewReader(arguments))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return cutColumns(arguments, 60)
	}
	var parts []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			parts = append(parts, fmt.Sprintf("%v=%s", k, cutColumns(fmt.Sprintf("%q", s), 60)))
			continue
		}
		var b bytes.Buffer
		if json.Compact(&b, v) != nil {
			b.Write(v)
		}
		parts = append(parts, fmt.Sprintf("%v=%s", k, cutColumns(b.String(), 60)))
	}
	return strings.Join(parts, " ")
}
