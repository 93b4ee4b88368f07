package orchestrator

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how a provider retries a leg that failed before any
// event arrived (a connection error, 429, or 5xx). Zero fields take the
// defaults below, so tests set only what they inject.
type RetryPolicy struct {
	Tries int           // attempts in all; 0 = 3
	Base  time.Duration // the wait before the second try, doubling after; 0 = 1s
	Cap   time.Duration // the longest wait, Retry-After included; 0 = 30s
	// Idle bounds how long a try may go without a byte from the endpoint
	// (its headers, then each piece of the answer); the try then fails and
	// is retried as a broken connection is. 0 = DefaultIdle; negative = no
	// bound.
	Idle time.Duration

	// Sleep waits d or until ctx ends (then it returns ctx's error); nil
	// waits on a timer. Tests inject one that records d and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock a Retry-After HTTP date is read against; nil =
	// time.Now.
	Now func() time.Time
	// OnRetry, when set, hears about each retry before its wait, so a REPL
	// can say "rate limited, retrying in 5s".
	OnRetry func(try int, wait time.Duration, err error)
}

// Defaults of RetryPolicy.
const (
	DefaultTries     = 3
	DefaultRetryBase = time.Second
	DefaultRetryCap  = 30 * time.Second
	// DefaultIdle is far longer than any live endpoint stays silent (a
	// local model reading a long prompt before its first token, a reasoning
	// model thinking): a silence this long is a hung server or proxy, which
	// would otherwise hold the agent for ever.
	DefaultIdle = 10 * time.Minute
)

// IdleEnv names the environment variable that sets RetryPolicy.Idle for
// melmux agent, as a Go duration; 0 means no bound.
const IdleEnv = "MELMUX_AGENT_STREAM_IDLE"

// IdleFromEnv reads IdleEnv with getenv: the bound, 0 when unset (the
// default), or an error naming the variable.
func IdleFromEnv(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(IdleEnv))
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("$%s is %q: want a Go duration such as 30m (0: no bound)", IdleEnv, v)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Tries <= 0 {
		p.Tries = DefaultTries
	}
	if p.Base <= 0 {
		p.Base = DefaultRetryBase
	}
	if p.Cap <= 0 {
		p.Cap = DefaultRetryCap
	}
	if p.Idle == 0 {
		p.Idle = DefaultIdle
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	return p
}

// wait is how long to wait after failed try number try (1-based): the
// server's Retry-After when it sent one, else Base doubled per try; never
// more than Cap.
func (p RetryPolicy) wait(try int, h http.Header) time.Duration {
	d, ok := retryAfter(h, p.Now())
	if !ok {
		d = p.Base
		for i := 1; i < try && d < p.Cap; i++ {
			d *= 2
		}
	}
	return min(d, p.Cap)
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs != secs { // negative or NaN
			return 0, true
		}
		if secs > 24*3600 { // keeps the Duration from overflowing; capped later anyway
			secs = 24 * 3600
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
