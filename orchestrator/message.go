package orchestrator

import (
	"context"

	"github.com/melmux/melmux/toolexec"
)

// Message is one entry of the conversation, in the relay's wire shape;
// every provider maps from it.
type Message struct {
	Role       string     `json:"role"` // system | user | assistant | tool
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one call the model asked for. Arguments is the JSON-encoded
// object exactly as the model sent it ("" is normalised to "{}"); the
// conversation keeps arguments that are not an object as "{}" (wellFormed).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage counts the tokens of one leg.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Add sums two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}

// Request is one leg: the whole conversation so far and the tools offered.
type Request struct {
	Model    string
	Role     toolexec.Role // sent as the relay's tool_role
	Messages []Message
	Tools    []toolexec.ToolDef
}

// Reply is what one leg answered: text, and calls when the model wants tools
// (no calls means the turn is done).
type Reply struct {
	Text  string
	Calls []ToolCall
	Usage Usage
	// Cut says the model stopped at its output token limit (OpenAI's
	// finish_reason "length", Anthropic's stop_reason "max_tokens"): the
	// text, or the arguments of the last call, end mid-way.
	Cut bool
}

// Provider runs one leg against a model endpoint, streaming assistant text
// to onText (which may be nil) as it arrives. It retries what is safe to
// retry (no event received yet) and never returns calls from a leg that
// failed.
type Provider interface {
	Name() string
	Leg(ctx context.Context, req Request, onText func(string)) (Reply, error)
}
