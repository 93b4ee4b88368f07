package orchestrator

import (
	"context"
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
)

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
