package modeltest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Leg scripts the answer to one request (one leg of the agent loop).
type Leg struct {
	// Role is the tool role the request must have: lead, worker, base, or
	// "" for any. The relay sends it as tool_role; for the other protocols
	// it is read from the tools offered (spawn_agent → lead, remember →
	// worker, else base).
	Role string `json:"role,omitempty"`
	// Expect lists text that must appear in the request's messages
	// (contents, call names and arguments). A request missing any is
	// answered with an error naming what was missing, and recorded.
	Expect []string `json:"expect,omitempty"`
	// Refuse lists text that must not appear in the results of the
	// previous leg's calls (the tool messages after the last assistant
	// message): a request holding any is answered with an error naming it.
	Refuse []string `json:"refuse,omitempty"`
	// Text is streamed in a few deltas.
	Text string `json:"text,omitempty"`
	// Repeat sends Text this many times over (0 or 1: once), for replies
	// too big to write in a script.
	Repeat int `json:"repeat,omitempty"`
	// Deltas streams the (repeated) text, and each call's arguments over
	// OpenAI and Anthropic, in this many deltas instead of a few (at most
	// one a byte); each is one event.
	Deltas int `json:"deltas,omitempty"`
	// Calls end the leg wanting tools; none ends the turn.
	Calls []Call `json:"calls,omitempty"`
	// Fail makes the leg fail instead: "drop" (the connection closes
	// before any byte of an answer), an HTTP status from 400 to 599 ("429"
	// with RetryAfter, "500", "401"...), "error" (an error event with
	// Message), "drop_after_text" (the connection breaks after the text),
	// "drop_after_calls" (it breaks after the calls: after the relay's
	// tool_calls event, before the end of the other protocols' streams),
	// "endless" (after the text, text deltas of Text, or "x", forever, as
	// fast as the client reads), "trickle" (after the start of the answer,
	// one byte of a keep-alive comment every IntervalMS, forever).
	Fail       string `json:"fail,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"` // seconds, sent as Retry-After with a status
	Message    string `json:"message,omitempty"`     // the error's text for "error" and statuses
	// DelayMS holds the answer this long after its headers, before the first
	// event (ended early when the client goes away or the server closes).
	DelayMS int `json:"delay_ms,omitempty"`
	// IntervalMS is the wait between the bytes of "trickle"; 0 = 1000.
	IntervalMS int `json:"interval_ms,omitempty"`
	// Whole answers with one JSON body instead of a stream (a chat
	// completion, an Anthropic message), as servers that ignore "stream":
	// true do; the relay has no such answer and streams.
	Whole bool `json:"whole,omitempty"`
	// Cut ends the answer as the output token limit does (finish_reason
	// "length", stop_reason "max_tokens"); the relay has no such end.
	Cut bool `json:"cut,omitempty"`
	// Usage reported for the leg; nil reports DefaultUsage.
	Usage *Usage `json:"usage,omitempty"`
}

// text is the leg's whole text, Text repeated.
func (l Leg) text() string {
	if l.Repeat > 1 {
		return strings.Repeat(l.Text, l.Repeat)
	}
	return l.Text
}

// Call is one tool call a leg answers with.
type Call struct {
	Name string `json:"name"`
	// Arguments is the JSON-encoded arguments exactly as sent, which may be
	// deliberately invalid. In a script it is an object, or a string taken
	// as it is.
	Arguments string `json:"arguments,omitempty"`
	// ID is the call's id; "" lets the server make a unique one, unless
	// NoID sends the call with no id at all.
	ID   string `json:"id,omitempty"`
	NoID bool   `json:"no_id,omitempty"`
}

// UnmarshalJSON takes arguments as an object or as a string.
func (c *Call) UnmarshalJSON(data []byte) error {
	type plain Call
	var raw struct {
		plain
		Arguments json.RawMessage `json:"arguments"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	*c = Call(raw.plain)
	if len(raw.Arguments) == 0 || string(raw.Arguments) == "null" {
		return nil
	}
	if raw.Arguments[0] == '"' {
		return json.Unmarshal(raw.Arguments, &c.Arguments)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw.Arguments); err != nil {
		return err
	}
	c.Arguments = b.String()
	return nil
}

// Usage is the token counts a leg reports.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// DefaultUsage is what a leg without Usage reports.
var DefaultUsage = Usage{InputTokens: 10, OutputTokens: 5}

// Failures a Leg's Fail may name, besides an HTTP status.
const (
	FailDrop           = "drop"
	FailError          = "error"
	FailDropAfterText  = "drop_after_text"
	FailDropAfterCalls = "drop_after_calls"
	FailEndless        = "endless"
	FailTrickle        = "trickle"
)

var roles = []string{"", "lead", "worker", "base"}

// ParseScript reads legs from JSON: an array of legs, or {"legs": [...]}.
// Unknown fields are errors, so a misspelt key does not silently script
// nothing.
func ParseScript(data []byte) ([]Leg, error) {
	trimmed := bytes.TrimSpace(data)
	var legs []Leg
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var err error
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var doc struct {
			Legs []Leg `json:"legs"`
		}
		err = dec.Decode(&doc)
		legs = doc.Legs
	} else {
		err = dec.Decode(&legs)
	}
	if err != nil {
		return nil, fmt.Errorf("model script: %w (want a JSON array of legs such as [{\"text\":\"hi\"}], or {\"legs\":[...]})", err)
	}
	if dec.More() {
		return nil, errors.New("model script: text after the legs")
	}
	if err := Validate(legs); err != nil {
		return nil, err
	}
	return legs, nil
}

// Validate checks a script: known roles and failures, named calls.
func Validate(legs []Leg) error {
	var errs []error
	for i, l := range legs {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("model script: leg %d: %s", i+1, fmt.Sprintf(format, args...)))
		}
		if !slices.Contains(roles, l.Role) {
			bad("role %q is not lead, worker, base or empty (any)", l.Role)
		}
		if l.Fail != "" {
			if _, err := failStatus(l.Fail); err != nil {
				bad("%v", err)
			}
		}
		if l.RetryAfter < 0 || l.DelayMS < 0 || l.IntervalMS < 0 || l.Repeat < 0 || l.Deltas < 0 {
			bad("retry_after, delay_ms, interval_ms, repeat and deltas may not be negative")
		}
		for j, c := range l.Calls {
			if strings.TrimSpace(c.Name) == "" {
				bad("call %d has no name", j+1)
			}
			if c.NoID && c.ID != "" {
				bad("call %d has both an id and no_id", j+1)
			}
		}
	}
	return errors.Join(errs...)
}

// failStatus reads Fail: its HTTP status, or 0 for the stream failures.
func failStatus(fail string) (int, error) {
	switch fail {
	case "", FailDrop, FailError, FailDropAfterText, FailDropAfterCalls, FailEndless, FailTrickle:
		return 0, nil
	}
	n, err := strconv.Atoi(fail)
	if err != nil || n < 400 || n > 599 {
		return 0, fmt.Errorf("fail %q is not drop, error, drop_after_text, drop_after_calls, endless, trickle or an HTTP status from 400 to 599", fail)
	}
	return n, nil
}
