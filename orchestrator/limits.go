package orchestrator

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/config/agentcfg"
)

// Limits bound one leg, so that an endpoint that is broken or hostile
// cannot hold the agent, a core or the memory for ever: one that streams
// without end, a byte a second (which the idle bound, reset by every byte,
// never stops), hundreds of megabytes of arguments or text. A leg that
// passes one fails with an error naming the bound (wrapping ErrLimit); it
// is not retried and none of its calls run. Zero fields take the defaults
// of agentcfg.
type Limits struct {
	ReplyBytes int           // the text of one leg
	ArgsBytes  int           // the arguments of all of one leg's calls together
	LegTime    time.Duration // one leg, from its request to the end of its answer, retries included
	// Calls is the calls run in one leg, the Agent's MaxCalls: the Agent
	// answers the calls past it "not run", and the provider fails a leg
	// asking for more than CallsFactor times as many, which is no model's
	// mistake and would make the conversation, resent every leg, grow by
	// a call and its result each.
	Calls int
}

// CallsFactor times Limits.Calls is the most calls one leg may ask for.
const CallsFactor = 16

// ErrLimit is wrapped by the error of a leg stopped by one of its Limits.
var ErrLimit = errors.New("leg limit reached")

// LimitsOf is the leg bounds of the [agent] table.
func LimitsOf(a agentcfg.Agent) Limits {
	return Limits{ReplyBytes: a.MaxReplyBytes, ArgsBytes: a.MaxArgsBytes, LegTime: a.MaxLegTime, Calls: a.MaxCalls}
}

// WithLimits sets the leg bounds (zero fields keep their defaults).
func WithLimits(l Limits) Option {
	return func(o *providerOptions) { o.limits = l }
}

func (l Limits) withDefaults() Limits {
	if l.ReplyBytes <= 0 {
		l.ReplyBytes = agentcfg.DefaultMaxReplyBytes
	}
	if l.ArgsBytes <= 0 {
		l.ArgsBytes = agentcfg.DefaultMaxArgsBytes
	}
	if l.LegTime <= 0 {
		l.LegTime = agentcfg.DefaultMaxLegTime
	}
	if l.Calls <= 0 {
		l.Calls = agentcfg.DefaultMaxCalls
	}
	return l
}

// limitHint ends the error of every bound: what it likely means, and the
// key that raises it.
func limitHint(key string) string {
	return "the endpoint is likely broken or hostile; if its answers really are this big or slow, raise " + key + " in the [agent] table of config.toml"
}

// errLegTime is the cause of a leg that passed Limits.LegTime.
var errLegTime = errors.New("the leg passed its time bound")

// legTimeError is the error of a leg that passed Limits.LegTime.
func (e *endpoint) legTimeError() *LegError {
	return e.fail(0, fmt.Sprintf("the leg was stopped after %s, the bound of one leg's time (max_leg_time): the endpoint kept it going without ending its answer",
		e.limits.LegTime), limitHint("max_leg_time"), ErrLimit)
}

// gather collects one leg's text and counts its calls' arguments under the
// leg's bounds, and shows the text as it comes. A strings.Builder keeps
// the text: adding each delta to a string copied the whole text every
// time, which made 80,000 ten-byte deltas cost 20 seconds of CPU.
type gather struct {
	limits Limits
	onText func(string)
	text   strings.Builder
	args   int
}

func newGather(l Limits, onText func(string)) *gather {
	return &gather{limits: l.withDefaults(), onText: onText}
}

// addText adds streamed text and shows it, unless it takes the text past
// its bound.
func (g *gather) addText(s string) error {
	if s == "" {
		return nil
	}
	if g.text.Len()+len(s) > g.limits.ReplyBytes {
		return g.textError()
	}
	g.text.WriteString(s)
	if g.onText != nil {
		g.onText(s)
	}
	return nil
}

// addArgs counts n bytes of arguments, unless they take the leg's
// arguments past their bound.
func (g *gather) addArgs(n int) error {
	if g.args+n > g.limits.ArgsBytes {
		return &eventError{msg: fmt.Sprintf("the tool calls' arguments passed %s, the bound of one leg's arguments together (max_args_bytes); the leg was stopped there and none of its calls were run",
			sizeString(g.limits.ArgsBytes)), hint: limitHint("max_args_bytes"), err: ErrLimit}
	}
	g.args += n
	return nil
}

// setCalls says the leg has asked for n calls so far, and fails it past
// CallsFactor times the calls it may run.
func (g *gather) setCalls(n int) error {
	if most := CallsFactor * g.limits.Calls; n > most {
		return &eventError{msg: fmt.Sprintf("the model asked for more than %d tool calls in one leg, %d times the %d that run (max_calls); the leg was stopped there and none of its calls were run",
			most, CallsFactor, g.limits.Calls), hint: limitHint("max_calls"), err: ErrLimit}
	}
	return nil
}

func (g *gather) textError() error {
	return &eventError{msg: fmt.Sprintf("the reply's text passed %s, the bound of one leg's text (max_reply_bytes); the leg was stopped there and none of its calls were run",
		sizeString(g.limits.ReplyBytes)), hint: limitHint("max_reply_bytes"), err: ErrLimit}
}

// checkWhole applies the bounds to a reply read whole (its body is bounded
// by maxWholeReply, so only the bounds set lower matter).
func (g *gather) checkWhole(r Reply) error {
	if len(r.Text) > g.limits.ReplyBytes {
		return g.textError()
	}
	if err := g.setCalls(len(r.Calls)); err != nil {
		return err
	}
	for _, c := range r.Calls {
		if err := g.addArgs(len(c.Arguments)); err != nil {
			return err
		}
	}
	return nil
}

// sizeString says n bytes in the largest binary unit that divides it.
func sizeString(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
