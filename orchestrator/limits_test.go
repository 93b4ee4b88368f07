package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/config/agentcfg"
	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/toolexec"
)

var allProtocols = []string{modeltest.Relay, modeltest.OpenAI, modeltest.Anthropic}

// bounded builds the provider for srv under limits.
func bounded(t *testing.T, proto string, srv *modeltest.Server, l Limits) (Provider, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	s := Settings{Provider: proto, Model: "m", BaseURL: srv.URL(), Key: modeltest.Key}
	p, err := NewProvider(s, nil, WithRetry(testRetry(sl)), WithLimits(l))
	if err != nil {
		t.Fatal(err)
	}
	return p, sl
}

// wantLimit checks that err is a leg stopped by the bound named key, saying
// what, and that the endpoint was asked once (a bound is not retried).
func wantLimit(t *testing.T, err error, srv *modeltest.Server, key string, says ...string) {
	t.Helper()
	var le *LegError
	if !errors.Is(err, ErrLimit) || !errors.As(err, &le) {
		t.Fatalf("err = %v, want a LegError wrapping ErrLimit", err)
	}
	for _, s := range append(says, "("+key+")", "raise "+key+" in the [agent] table") {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err = %v, want it to say %q", err, s)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the endpoint was asked %d times, want once: a bound is not retried", n)
	}
}

// An endpoint that streams text without end is stopped at max_reply_bytes,
// streamed or sent whole; text up to the bound is whole.
func TestReplyTextBound(t *testing.T) {
	for _, proto := range allProtocols {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(t, proto, []modeltest.Leg{{Text: "0123456789", Fail: modeltest.FailEndless}})
			p, _ := bounded(t, proto, srv, Limits{ReplyBytes: 64 << 10})
			shown := 0
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := p.Leg(ctx, Request{}, func(s string) {
				if shown += len(s); shown > 4*64<<10 { // far past the bound: it did not stop the leg
					cancel()
				}
			})
			wantLimit(t, err, srv, "max_reply_bytes", "the reply's text passed 64 KiB", "none of its calls were run")
			if shown > 64<<10 {
				t.Errorf("%d bytes of text were shown, past the bound", shown)
			}

			srv = modeltest.New(t, proto, []modeltest.Leg{{Text: "<b>", Repeat: 1000, Deltas: 100}})
			p, _ = bounded(t, proto, srv, Limits{ReplyBytes: 3000})
			if r, err := p.Leg(context.Background(), Request{}, nil); err != nil || len(r.Text) != 3000 {
				t.Errorf("text at the bound: %d bytes, %v", len(r.Text), err)
			}
			if proto == modeltest.Relay {
				return
			}
			srv = modeltest.New(t, proto, []modeltest.Leg{{Text: "<b>", Repeat: 1000, Whole: true}})
			p, _ = bounded(t, proto, srv, Limits{ReplyBytes: 2999})
			_, err = p.Leg(context.Background(), Request{}, nil)
			wantLimit(t, err, srv, "max_reply_bytes", "the reply's text passed 2999 bytes")
		})
	}
}

// The text of many small deltas is gathered in linear time: adding each
// to a string copied the text so far every time, 2 GB for 20,000 ten-byte
// deltas (1.5 s; 80,000 took 21 s). Memory allocated tells the two apart
// without a clock.
func TestManyDeltasCostLinear(t *testing.T) {
	const deltas = 20000
	for _, proto := range allProtocols {
		t.Run(proto, func(t *testing.T) {
			var body strings.Builder
			st := newHandStream(proto, &body)
			for range deltas {
				st.text("0123456789")
			}
			st.end()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := readLeg(protocolOf(proto), newSSEDecoder(strings.NewReader(body.String())), newGather(Limits{}, nil))
			runtime.ReadMemStats(&after)
			if err != nil || len(r.Text) != 10*deltas {
				t.Fatalf("%d bytes of text, %v", len(r.Text), err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
				t.Errorf("reading %d deltas allocated %d MB: the text is copied at every delta", deltas, alloc>>20)
			}
		})
	}
}

// handStream writes a stream of one protocol by hand, for readLeg alone.
type handStream struct {
	proto string
	w     *strings.Builder
}

func newHandStream(proto string, w *strings.Builder) *handStream {
	if proto == modeltest.Anthropic {
		w.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	}
	return &handStream{proto: proto, w: w}
}

func (s *handStream) text(t string) {
	q, _ := json.Marshal(t)
	switch s.proto {
	case modeltest.Relay:
		fmt.Fprintf(s.w, "event: delta\ndata: {\"text\":%s}\n\n", q)
	case modeltest.OpenAI:
		fmt.Fprintf(s.w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", q)
	case modeltest.Anthropic:
		fmt.Fprintf(s.w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n", q)
	}
}

func (s *handStream) end() {
	switch s.proto {
	case modeltest.Relay:
		s.w.WriteString("event: done\ndata: {}\n\n")
	case modeltest.OpenAI:
		s.w.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	case modeltest.Anthropic:
		s.w.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}
}

func protocolOf(proto string) protocol {
	switch proto {
	case modeltest.Relay:
		return relayProtocol{}
	case modeltest.OpenAI:
		return openAIProtocol{}
	}
	return anthropicProtocol{}
}

// The arguments of one leg's calls together are bounded by max_args_bytes,
// however they are cut into pieces, and sent whole too.
func TestArgsBound(t *testing.T) {
	big := func(n int) string {
		b, _ := json.Marshal(map[string]string{"path": "f", "content": strings.Repeat("x", n)})
		return string(b)
	}
	for _, proto := range allProtocols {
		t.Run(proto, func(t *testing.T) {
			// Two calls of 40 KiB: each under the bound of 64 KiB, not together.
			legs := []modeltest.Leg{{Calls: []modeltest.Call{{Name: "write_file", Arguments: big(40 << 10)}, {Name: "write_file", Arguments: big(40 << 10)}}, Deltas: 50}}
			srv := modeltest.New(t, proto, legs)
			p, _ := bounded(t, proto, srv, Limits{ArgsBytes: 64 << 10})
			_, err := p.Leg(context.Background(), Request{}, nil)
			wantLimit(t, err, srv, "max_args_bytes", "the tool calls' arguments passed 64 KiB", "none of its calls were run")

			srv = modeltest.New(t, proto, []modeltest.Leg{{Calls: []modeltest.Call{{Name: "write_file", Arguments: big(60 << 10)}}, Deltas: 50}})
			p, _ = bounded(t, proto, srv, Limits{ArgsBytes: 64 << 10})
			if r, err := p.Leg(context.Background(), Request{}, nil); err != nil || len(r.Calls) != 1 || r.Calls[0].Arguments != big(60<<10) {
				t.Errorf("arguments under the bound: %d calls, %v", len(r.Calls), err)
			}
			if proto == modeltest.Relay {
				return
			}
			legs[0].Whole = true
			srv = modeltest.New(t, proto, legs)
			p, _ = bounded(t, proto, srv, Limits{ArgsBytes: 64 << 10})
			_, err = p.Leg(context.Background(), Request{}, nil)
			wantLimit(t, err, srv, "max_args_bytes", "the tool calls' arguments passed 64 KiB")
		})
	}
}

// An endpoint that keeps a leg alive a byte at a time (the idle bound,
// reset by each byte, never fires) is stopped at max_leg_time.
func TestLegTimeBound(t *testing.T) {
	for _, proto := range allProtocols {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(t, proto, []modeltest.Leg{{Fail: modeltest.FailTrickle, IntervalMS: 5}})
			p, _ := bounded(t, proto, srv, Limits{LegTime: 300 * time.Millisecond})
			// A guard, not a measure: without the bound the leg would never end.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := p.Leg(ctx, Request{}, nil)
			wantLimit(t, err, srv, "max_leg_time", "the leg was stopped after 300ms, the bound of one leg's time")
			if errors.Is(err, context.Canceled) || errors.Is(err, errIdle) {
				t.Errorf("err = %v, want the leg's bound, not a cancellation or the idle bound", err)
			}
		})
	}
}

// The bound counts the retries and their waits: a leg whose endpoint
// keeps failing stops at max_leg_time rather than after its tries.
func TestLegTimeCountsRetries(t *testing.T) {
	srv := modeltest.New(nil, modeltest.Relay, []modeltest.Leg{{Fail: "503"}, {Fail: "503"}, {Fail: "503"}})
	defer srv.Close()
	s := Settings{Provider: modeltest.Relay, Model: "m", BaseURL: srv.URL()}
	p, err := NewProvider(s, nil, WithRetry(RetryPolicy{Base: time.Hour}), WithLimits(Limits{LegTime: 200 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Leg(context.Background(), Request{}, nil)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "max_leg_time") {
		t.Errorf("err = %v, want the leg's time bound", err)
	}
}

// A person's Ctrl-C is still a cancellation, not the time bound.
func TestCancelIsNotTheLegTime(t *testing.T) {
	srv := modeltest.New(t, modeltest.Relay, []modeltest.Leg{{Fail: modeltest.FailTrickle, IntervalMS: 5}})
	p, _ := bounded(t, modeltest.Relay, srv, Limits{LegTime: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		srv.Wait(context.Background(), 1)
		cancel()
	}()
	_, err := p.Leg(ctx, Request{}, nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrLimit) {
		t.Errorf("err = %v, want a cancellation", err)
	}
}

// Only the first max_calls calls of a leg run; the model is told of the
// others, and the conversation stays well formed.
func TestCallsBound(t *testing.T) {
	for _, proto := range allProtocols {
		t.Run(proto, func(t *testing.T) {
			calls := make([]modeltest.Call, 10)
			for i := range calls {
				calls[i] = modeltest.Call{Name: "recall", Arguments: fmt.Sprintf(`{"query":"q%d"}`, i)}
			}
			srv := modeltest.New(t, proto, []modeltest.Leg{
				{Calls: calls},
				{Expect: []string{"not run: this leg asked for 10 tool calls and at most 3 run in one leg (max_calls in the [agent] table); the first 3 ran"}, Text: "done"},
			})
			p, _ := bounded(t, proto, srv, Limits{Calls: 3})
			tools := &fakeTools{}
			a := &Agent{Provider: p, Role: toolexec.RoleWorker, Tools: tools, MaxCalls: 3}
			res, err := a.Turn(context.Background(), "go")
			if err != nil || res.Reply != "done" {
				t.Fatalf("%+v, %v", res, err)
			}
			if len(tools.calls) != 3 || !strings.Contains(strings.Join(tools.calls, " "), `"q0"`) || !strings.Contains(strings.Join(tools.calls, " "), `"q2"`) {
				t.Errorf("ran %q, want the first 3", tools.calls)
			}
			notRun := 0
			for _, m := range a.Messages() {
				if m.Role == "tool" && strings.HasPrefix(m.Content, "not run: this leg asked for 10") {
					notRun++
				}
			}
			if notRun != 7 {
				t.Errorf("%d results say not run, want 7", notRun)
			}
			if err := srv.Verify(); err != nil {
				t.Error(err)
			}
		})
	}
}

// A leg asking for more than CallsFactor times max_calls fails as it
// streams: such a leg is no model's, and each call would stay in the
// conversation with its result, resent every leg.
func TestCallsFarPastTheBound(t *testing.T) {
	for _, proto := range allProtocols {
		t.Run(proto, func(t *testing.T) {
			calls := make([]modeltest.Call, 3*CallsFactor+1)
			for i := range calls {
				calls[i] = modeltest.Call{Name: "recall", Arguments: `{"query":"q"}`}
			}
			srv := modeltest.New(t, proto, []modeltest.Leg{{Calls: calls}})
			p, _ := bounded(t, proto, srv, Limits{Calls: 3})
			tools := &fakeTools{}
			a := &Agent{Provider: p, Role: toolexec.RoleWorker, Tools: tools, MaxCalls: 3}
			_, err := a.Turn(context.Background(), "go")
			wantLimit(t, err, srv, "max_calls", fmt.Sprintf("the model asked for more than %d tool calls in one leg, %d times the 3 that run", 3*CallsFactor, CallsFactor))
			if len(tools.calls) != 0 {
				t.Errorf("ran %d calls of a failed leg", len(tools.calls))
			}
			if proto == modeltest.Relay {
				return
			}
			srv = modeltest.New(t, proto, []modeltest.Leg{{Calls: calls, Whole: true}})
			p, _ = bounded(t, proto, srv, Limits{Calls: 3})
			_, err = p.Leg(context.Background(), Request{}, nil)
			wantLimit(t, err, srv, "max_calls", "more than 48 tool calls")
		})
	}
}

// The defaults come from agentcfg, and LimitsOf takes the [agent] table.
func TestLimitsDefaults(t *testing.T) {
	l := Limits{}.withDefaults()
	if l.ReplyBytes != agentcfg.DefaultMaxReplyBytes || l.ArgsBytes != agentcfg.DefaultMaxArgsBytes || l.LegTime != agentcfg.DefaultMaxLegTime || l.Calls != agentcfg.DefaultMaxCalls {
		t.Errorf("defaults %+v", l)
	}
	got := LimitsOf(agentcfg.Agent{MaxCalls: 5, MaxLegTime: time.Minute, MaxReplyBytes: 2048, MaxArgsBytes: 4096})
	if got != (Limits{Calls: 5, LegTime: time.Minute, ReplyBytes: 2048, ArgsBytes: 4096}) {
		t.Errorf("LimitsOf = %+v", got)
	}
	if (&Agent{}).CallLimit() != agentcfg.DefaultMaxCalls || (&Agent{MaxCalls: 7}).CallLimit() != 7 {
		t.Error("CallLimit")
	}
	for n, want := range map[int]string{4 << 20: "4 MiB", 1 << 30: "1 GiB", 3 << 10: "3 KiB", 2999: "2999 bytes"} {
		if got := sizeString(n); got != want {
			t.Errorf("sizeString(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkLegDeltas is one leg of n ten-byte text deltas from a scripted
// endpoint. Before the text was gathered in a strings.Builder, 20k, 40k and
// 80k deltas took 1.3, 6.7 and 22.9 s over the relay (quadratic).
func BenchmarkLegDeltas(b *testing.B) {
	for _, n := range []int{20000, 40000, 80000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			legs := make([]modeltest.Leg, b.N)
			for i := range legs {
				legs[i] = modeltest.Leg{Text: "0123456789", Repeat: n, Deltas: n}
			}
			srv := modeltest.New(b, modeltest.Relay, legs)
			p, err := NewProvider(Settings{Provider: ProviderRelay, Model: "m", BaseURL: srv.URL()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if r, err := p.Leg(context.Background(), Request{}, nil); err != nil || len(r.Text) != 10*n {
					b.Fatalf("%d bytes, %v", len(r.Text), err)
				}
			}
		})
	}
}
