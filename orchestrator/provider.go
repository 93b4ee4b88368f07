package orchestrator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Provider names, as Settings.Provider, [agent] provider and --provider
// spell them.
const (
	ProviderRelay     = "relay"
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// Option changes how NewProvider builds a provider.
type Option func(*providerOptions)

type providerOptions struct {
	retry  RetryPolicy
	limits Limits
}

// WithRetry sets the retry policy (zero fields keep their defaults).
func WithRetry(p RetryPolicy) Option {
	return func(o *providerOptions) { o.retry = p }
}

// NewProvider builds the provider s names, talking through hc (nil = the
// default client; it should have no overall timeout, since a leg streams
// for as long as the model writes). The provider never follows a redirect
// (see noRedirects); hc itself is left as it is. s is normally Resolve's
// result.
func NewProvider(s Settings, hc *http.Client, opts ...Option) (Provider, error) {
	var o providerOptions
	for _, opt := range opts {
		opt(&o)
	}
	if s.BaseURL == "" {
		return nil, fmt.Errorf("%w: %s has no endpoint URL: set $%s or [agent] base_url", ErrNotConfigured, s.Provider, baseEnvOf(s.Provider))
	}
	base := strings.TrimRight(s.BaseURL, "/")
	p := &provider{name: s.Provider, model: s.Model}
	switch s.Provider {
	case ProviderRelay:
		p.ep, p.proto = newEndpoint(s, s.BaseURL, "", hc, o.retry, o.limits), relayProtocol{}
		p.ep.bearer(s.Key)
	case ProviderOpenAI:
		p.ep, p.proto = newEndpoint(s, base, "/chat/completions", hc, o.retry, o.limits), openAIProtocol{}
		p.ep.bearer(s.Key)
	case ProviderAnthropic:
		// The SDKs take the base without /v1; accept it with /v1 as well.
		p.ep, p.proto = newEndpoint(s, strings.TrimSuffix(base, "/v1"), "/v1/messages", hc, o.retry, o.limits), anthropicProtocol{}
		if s.Key != "" {
			p.ep.header.Set("X-Api-Key", s.Key)
		}
		p.ep.header.Set("Anthropic-Version", "2023-06-01")
	default:
		return nil, fmt.Errorf("%w: %q is not a provider (providers: %s)", ErrNotConfigured, s.Provider, strings.Join(providers, ", "))
	}
	return p, nil
}

// provider is every Provider: one endpoint and the protocol spoken there.
type provider struct {
	name  string
	ep    endpoint
	model string // used when the request names none
	proto protocol
}

// protocol maps a leg onto one wire protocol.
type protocol interface {
	// body is the JSON request of one leg.
	body(req Request, model string) any
	// read follows one answer to its end, its text and arguments through g
	// (which bounds them and shows the text). It returns calls only from a
	// whole answer.
	read(dec *sseDecoder, g *gather) (Reply, error)
}

// wholeProtocol is a protocol whose servers may answer a streaming request
// with the whole reply as one JSON body: several OpenAI-compatible servers
// and proxies ignore "stream": true (some whenever tools are sent).
type wholeProtocol interface {
	// whole reads such a body; ok is false when it is not a reply (an
	// error, or JSON of another shape).
	whole(raw []byte) (r Reply, ok bool)
}

func (p *provider) Name() string { return p.name }

func (p *provider) Leg(ctx context.Context, req Request, onText func(string)) (Reply, error) {
	body := p.proto.body(req, firstSet(req.Model, p.model))
	var whole wholeReader
	if wp, ok := p.proto.(wholeProtocol); ok {
		whole = func(raw []byte) (Reply, bool, error) {
			r, ok := wp.whole(raw)
			if !ok {
				return Reply{}, false, nil
			}
			if err := newGather(p.ep.limits, nil).checkWhole(r); err != nil {
				return Reply{}, true, err
			}
			r, err := checkCalls(r)
			if err == nil && onText != nil && r.Text != "" {
				onText(r.Text)
			}
			return r, true, err
		}
	}
	return p.ep.leg(ctx, body, func(dec *sseDecoder) (Reply, error) {
		return readLeg(p.proto, dec, newGather(p.ep.limits, onText))
	}, whole)
}

// readLeg reads one answer and refuses calls the loop could not run.
func readLeg(pr protocol, dec *sseDecoder, g *gather) (Reply, error) {
	r, err := pr.read(dec, g)
	if err != nil {
		return Reply{}, err
	}
	return checkCalls(r)
}

// checkCalls refuses a reply with a call the loop could not run: a call
// with no name would be sent back to the model on the next leg, where the
// endpoint refuses the whole conversation, so the leg fails now instead,
// before any of its calls runs.
func checkCalls(r Reply) (Reply, error) {
	for i, c := range r.Calls {
		if strings.TrimSpace(c.Name) == "" {
			return Reply{}, &eventError{msg: fmt.Sprintf("the model sent tool call %d of %d without a name; none of this leg's calls were run", i+1, len(r.Calls))}
		}
	}
	return r, nil
}

var providers = []string{ProviderRelay, ProviderOpenAI, ProviderAnthropic}

// wireUsage reads the token counts of any of the three wire shapes.
type wireUsage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func (w *wireUsage) usage() Usage {
	if w == nil {
		return Usage{}
	}
	u := Usage{InputTokens: w.InputTokens, OutputTokens: w.OutputTokens}
	if u.InputTokens == 0 {
		u.InputTokens = w.PromptTokens
	}
	if u.OutputTokens == 0 {
		u.OutputTokens = w.CompletionTokens
	}
	return u
}

// finishCall makes a gathered call ready for the loop: "" (or blank)
// arguments mean no arguments, and a call the server sent without an id gets
// one, since the next leg pairs each result with its call by id.
func finishCall(c ToolCall) ToolCall {
	if strings.TrimSpace(c.Arguments) == "" {
		c.Arguments = "{}"
	}
	if c.ID == "" {
		c.ID = newCallID()
	}
	return c
}

func newCallID() string {
	var b [12]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than fail)
	return "call_" + hex.EncodeToString(b[:])
}

// rawArguments reads an arguments field that is a JSON-encoded string (the
// documented shape) or, from lenient servers, the object itself.
func rawArguments(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	t := strings.TrimSpace(string(raw))
	if t == "null" {
		return ""
	}
	return t
}
