package agentverbs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/proto"
)

// reportLine is the request line a report makes, as the client writes it.
func reportLine(t *testing.T, r proto.AgentReportParams) int {
	t.Helper()
	params, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(proto.Request{ID: 1 << 62, Method: "agent_report", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return len(line) + 1
}

// A reply too big for one report line is clipped to fit, as near the bound
// as it can, with a note saying how much was left out and where the whole
// reply is; one that fits is sent as it is.
func TestFitReport(t *testing.T) {
	base := proto.AgentReportParams{Pane: 2, ID: "0f9c1d3e-6b1a-4c55-9d0e-3a5b8c7d2e10", State: "idle", Turn: 3, Legs: 7, InputTokens: 123456, OutputTokens: 7890}
	small := base
	small.Reply = "<b>short</b>"
	if got := fitReport(small, "/t/x.jsonl"); got != small {
		t.Errorf("a reply that fits was changed: %+v", got)
	}
	mixed := strings.Repeat("é\"\\\n\t\x01<>&\u2028\ufffd\xff😀 plain text ", 40000)
	for name, reply := range map[string]string{
		"html":          strings.Repeat("<b>x</b>", 262144), // 2 MiB, 6.5 MiB as JSON
		"plain":         strings.Repeat("0123456789", 300000),
		"mixed":         mixed,
		"at the bound":  strings.Repeat("a", proto.MaxLine-300),
		"one past room": strings.Repeat("a", reportRoom),
	} {
		t.Run(name, func(t *testing.T) {
			r := base
			r.Reply = reply
			got := fitReport(r, "/state/melmux/agents/x.jsonl")
			if n := reportLine(t, got); n > proto.MaxLine {
				t.Fatalf("the report line is %d bytes, over the %d the session takes", n, proto.MaxLine)
			} else if reportLine(t, r) > proto.MaxLine && n < proto.MaxLine-2048 {
				t.Errorf("the report line is %d bytes: %d of room left unused", n, proto.MaxLine-n)
			}
			if got.Reply == reply {
				if reportLine(t, r) > proto.MaxLine {
					t.Fatal("a reply over the bound was sent whole")
				}
				return
			}
			kept, note, ok := strings.Cut(got.Reply, "\n\n[melmux: the reply was cut here")
			if !ok || !strings.HasPrefix(reply, kept) || !utf8.RuneStart(reply[len(kept)]) {
				t.Fatalf("the clipped reply is not a start of the reply at a rune boundary, then the note: %.200q", got.Reply)
			}
			want := fmt.Sprintf(" to fit the session's 1 MiB report: it is %d bytes, and the last %d were left out; "+
				`the whole reply is in the agent's transcript, /state/melmux/agents/x.jsonl (its last "turn" record)]`, len(reply), len(reply)-len(kept))
			if note != want {
				t.Errorf("note %q, want %q", note, want)
			}
			if got.Pane != 2 || got.Turn != 3 || got.State != "idle" || got.Legs != 7 || got.OutputTokens != 7890 {
				t.Errorf("the other fields changed: %+v", got)
			}
		})
	}
}

// A huge error is clipped too, and leaves room for the reply.
func TestFitReportError(t *testing.T) {
	r := proto.AgentReportParams{Pane: 2, ID: "x", State: "idle", Error: strings.Repeat("<e>", 1<<20), Reply: strings.Repeat("r", 1000<<10)}
	got := fitReport(r, "")
	if n := reportLine(t, got); n > proto.MaxLine {
		t.Fatalf("the report line is %d bytes", n)
	}
	if jsonStringLen(got.Error) > maxReportError || !strings.Contains(got.Error, "[melmux: the error was cut here: it is 3145728 bytes") {
		t.Errorf("error of %d bytes: %.100q...", len(got.Error), got.Error[len(got.Error)-100:])
	}
	if !strings.HasSuffix(got.Reply, "the whole reply is in the agent's transcript]") || len(got.Reply) < 1000<<10-100<<10 {
		t.Errorf("reply of %d bytes ending %q", len(got.Reply), got.Reply[len(got.Reply)-60:])
	}
}

// jsonStringLen counts what encoding/json writes, or a little more (\b and
// \f), never less.
func TestJSONStringLen(t *testing.T) {
	for _, s := range []string{"", "plain", "<b>&amp;</b>", "quote\" back\\ nl\n tab\t cr\r", "\x00\x1f\x7f", "\b\f", "\u2028\u2029", "é😀", "\xff\xfe", "\ufffd", "a\xe2\x82"} {
		b, _ := json.Marshal(s)
		got := jsonStringLen(s)
		if got < len(b) || (got != len(b) && !strings.ContainsAny(s, "\b\f")) {
			t.Errorf("jsonStringLen(%q) = %d, encoding/json writes %d (%s)", s, got, len(b), b)
		}
	}
}
