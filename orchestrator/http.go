package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// ErrProvider is wrapped by every error a provider's Leg returns, except a
// cancelled context (that error wraps context.Canceled or the context's
// cause instead). The concrete error is a *LegError.
var ErrProvider = errors.New("model provider error")

// LegError is a leg that failed: what the endpoint said and what to do next.
type LegError struct {
	Provider string // relay | openai | anthropic
	Status   int    // the HTTP status; 0 when the failure was not a status
	Message  string // what went wrong, in the endpoint's words where it gave any
	Hint     string // what to do next; "" when there is nothing better than trying again
	Err      error  // the underlying error, if any
}

func (e *LegError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap gives ErrProvider and the underlying error, so errors.Is finds
// either.
func (e *LegError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrProvider}
	}
	return []error{ErrProvider, e.Err}
}

// endpoint is what the three providers share: one URL POSTed with JSON,
// answered with an event stream, under one retry policy.
type endpoint struct {
	provider string
	url      string
	suffix   string      // what the provider added to the base URL to make url
	header   http.Header // authentication and version headers
	hc       *http.Client
	retry    RetryPolicy
	limits   Limits
	// For hints: the variables that set the key and the base URL, and
	// whether a key was sent at all.
	keyEnv, baseEnv string
	keySet          bool
	model           string
}

// bearer sends key as a bearer token, when there is one.
func (e *endpoint) bearer(key string) {
	if key != "" {
		e.header.Set("Authorization", "Bearer "+key)
	}
}

// eventError is an error the stream itself reported; the endpoint turns it
// into a LegError.
type eventError struct {
	msg, hint string
	err       error // what errors.Is finds in the LegError; nil: nothing more
}

func (e *eventError) Error() string { return e.msg }

func newEndpoint(s Settings, base, suffix string, hc *http.Client, retry RetryPolicy, limits Limits) endpoint {
	return endpoint{
		provider: s.Provider,
		url:      base + suffix,
		suffix:   suffix,
		header:   http.Header{},
		hc:       noRedirects(hc),
		retry:    retry.withDefaults(),
		limits:   limits.withDefaults(),
		keyEnv:   s.keyEnv(),
		baseEnv:  baseEnvOf(s.Provider),
		keySet:   s.Key != "",
		model:    s.Model,
	}
}

// streamReader reads one leg's events. An *eventError is what the stream
// itself reported; any other error (not a *LegError) is a broken stream.
type streamReader func(*sseDecoder) (Reply, error)

// wholeReader reads a reply a server sent whole, as one JSON body, instead
// of streaming it; ok is false when the body is not a reply. An error is
// the reply's own fault (an *eventError).
type wholeReader func(raw []byte) (r Reply, ok bool, err error)

// maxWholeReply bounds a reply read whole, as maxSSELine bounds an event.
const maxWholeReply = maxSSELine

// leg POSTs body and reads the answer with read. It retries a connection
// error, a 429 or a 5xx, and a stream that ended before its first event;
// once any event has arrived it never retries, since text may already be on
// the screen and calls must not run twice. The whole leg, retries and
// their waits included, is bounded by e.limits.LegTime.
func (e *endpoint) leg(ctx context.Context, body any, read streamReader, whole wholeReader) (Reply, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, e.limits.LegTime, errLegTime)
	defer cancel()
	payload, err := json.Marshal(body)
	if err != nil {
		return Reply{}, e.fail(0, "could not encode the request: "+err.Error(), "", err)
	}
	for try := 1; ; try++ {
		reply, retryable, resp, err := e.attempt(ctx, payload, read, whole)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return Reply{}, e.cancelled(ctx)
		}
		if !retryable || try >= e.retry.Tries {
			var le *LegError
			if retryable && errors.As(err, &le) {
				le.Message += fmt.Sprintf(" (gave up after %d tries)", try)
			}
			return Reply{}, err
		}
		var h http.Header
		if resp != nil {
			h = resp.Header
		}
		wait := e.retry.wait(try, h)
		if e.retry.OnRetry != nil {
			e.retry.OnRetry(try, wait, err)
		}
		if e.retry.Sleep(ctx, wait) != nil {
			return Reply{}, e.cancelled(ctx)
		}
	}
}

// attempt is one try. It reports whether its failure may be retried, and
// the response whose headers say how long to wait. whole (may be nil) reads
// a reply sent as JSON instead of a stream.
func (e *endpoint) attempt(ctx context.Context, payload []byte, read streamReader, whole wholeReader) (Reply, bool, *http.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := newWatchdog(e.retry.Idle, func() { cancel(errIdle) })
	defer wd.stop()
	reply, retryable, resp, err := e.try(ctx, payload, read, whole, wd)
	if err != nil && errors.Is(context.Cause(ctx), errIdle) {
		// The silence, not what it broke, is the news; like a broken
		// connection it is retried when no event had arrived.
		err = e.fail(0, fmt.Sprintf("the endpoint sent nothing for %s", e.retry.Idle),
			fmt.Sprintf("it may be overloaded or hung: try again later ($%s sets the bound)", IdleEnv), errIdle)
	}
	return reply, retryable, resp, err
}

// noRedirects is hc (nil: the default client) made to hand a redirect back
// instead of following it. A followed 307 or 308 sends the whole
// conversation again, with the X-Api-Key header, to wherever the endpoint
// points, another host or plain http included (Go strips only Authorization,
// and only for another host name, whatever the port); a 301, 302 or 303
// turns the POST into a GET without the conversation, which no model API
// answers with a stream. Redirects on the same host are refused as well:
// they cost a round trip every leg, and the fix is the same in every case,
// the base URL set to the final address. The caller's client is not changed.
func noRedirects(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// redirectError is the error of a redirect, which is never followed (see
// noRedirects): where the endpoint pointed, and the base URL that would
// reach it directly when the target keeps the provider's path.
func (e *endpoint) redirectError(resp *http.Response) *LegError {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return e.fail(resp.StatusCode, "the endpoint answered with a redirect that names no address (no Location header)",
			"check the base URL ("+e.baseHint()+")", nil)
	}
	target, err := resp.Request.URL.Parse(loc)
	if err != nil { // net/http parsed it before handing the answer back
		return e.fail(resp.StatusCode, fmt.Sprintf("the endpoint redirected to %q, which is not a URL", loc),
			"check the base URL ("+e.baseHint()+")", nil)
	}
	where := target.Redacted()
	if resp.Request.URL.Scheme == "https" && target.Scheme == "http" {
		where += " (from https to plain http)"
	}
	hint := "set the base URL to the final address (" + e.baseHint() + ")"
	if base, ok := strings.CutSuffix(target.Path, e.suffix); ok && target.RawQuery == "" && target.Fragment == "" && target.User == nil {
		b := *target
		b.Path, b.RawPath = base, ""
		hint = fmt.Sprintf("set the base URL to the final address, %s (%s)", strings.TrimRight(b.String(), "/"), e.baseHint())
		if e.suffix == "" { // the relay's URL is the whole endpoint
			hint = fmt.Sprintf("set the URL to the final address, %s (%s)", b.String(), e.baseHint())
		}
	}
	return e.fail(resp.StatusCode, fmt.Sprintf("the endpoint redirected to %s; melmux does not follow redirects of model requests, "+
		"which would send the conversation and the key on to another address", where), hint, nil)
}

// errIdle is the cause of a try the watchdog ended.
var errIdle = errors.New("the endpoint went silent")

// try is attempt's request and answer, under the watchdog wd, which each
// byte from the endpoint resets.
func (e *endpoint) try(ctx context.Context, payload []byte, read streamReader, whole wholeReader, wd *watchdog) (Reply, bool, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(payload))
	if err != nil {
		return Reply{}, false, nil, e.fail(0, fmt.Sprintf("bad endpoint URL %q: %v", e.url, err), e.baseHint(), err)
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := e.hc.Do(req)
	if err != nil {
		cause := err
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			cause = ue.Err // the URL is said once
		}
		return Reply{}, true, nil, e.fail(0, fmt.Sprintf("could not reach %s: %v", e.url, cause),
			"is the server running and the URL right? "+e.baseHint(), err)
	}
	defer resp.Body.Close()
	wd.reset()
	resp.Body = wd.reader(resp.Body)
	if resp.StatusCode/100 == 3 {
		return Reply{}, false, resp, e.redirectError(resp)
	}
	if resp.StatusCode/100 != 2 {
		retryable := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return Reply{}, retryable, resp, e.statusError(resp)
	}
	// Some servers answer an error, or a whole non-streamed reply, with 200
	// and JSON; a web page means the URL is not the API.
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if strings.Contains(ct, "json") || ct == "text/html" {
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxWholeReply))
		if err != nil {
			return Reply{}, false, resp, e.fail(0, "the reply broke: "+err.Error(), "try again", err)
		}
		if whole != nil && strings.Contains(ct, "json") {
			if reply, ok, err := whole(raw); ok {
				var ee *eventError
				if errors.As(err, &ee) {
					return Reply{}, false, resp, e.fail(0, ee.msg, ee.hint, ee.err)
				}
				return reply, false, resp, err
			}
		}
		return Reply{}, false, resp, e.notAStream(resp.StatusCode, ct, errorBody(bytes.NewReader(raw)))
	}
	dec := newSSEDecoder(resp.Body)
	reply, err := read(dec)
	if err == nil {
		return reply, false, resp, nil
	}
	var (
		le *LegError
		ee *eventError
	)
	switch quoted, garbage := dec.notAStream(); {
	case garbage:
		// Not retried: a server or proxy answering this way does it again.
		return Reply{}, false, resp, e.notAStream(resp.StatusCode, ct, quoted)
	case errors.As(err, &ee):
		err = e.fail(0, ee.msg, ee.hint, ee.err)
	case !errors.As(err, &le):
		err = e.fail(0, "the stream broke: "+err.Error(), "try again", err)
	}
	return Reply{}, dec.events == 0, resp, err
}

// notAStream is the error of an answer of content type ct that is not an
// event stream; what says what came instead.
func (e *endpoint) notAStream(status int, ct, what string) *LegError {
	if ct == "" {
		ct = "with no Content-Type"
	}
	return e.fail(status, fmt.Sprintf("the endpoint answered %s, not an event stream: %s", ct, what),
		"check that "+e.url+" is a streaming "+e.provider+" endpoint ("+e.baseHint()+")", nil)
}

func (e *endpoint) fail(status int, msg, hint string, err error) *LegError {
	return &LegError{Provider: e.provider, Status: status, Message: msg, Hint: hint, Err: err}
}

func (e *endpoint) cancelled(ctx context.Context) error {
	if context.Cause(ctx) == errLegTime {
		return e.legTimeError()
	}
	return fmt.Errorf("%s: leg cancelled: %w", e.provider, context.Cause(ctx))
}

// statusError turns a refusal into an error that says what to change.
func (e *endpoint) statusError(resp *http.Response) *LegError {
	msg := errorBody(resp.Body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	var hint string
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		if e.keySet {
			hint = fmt.Sprintf("the key in $%s was refused: check it, or name the variable that holds the right one with api_key_env in [agent]", e.keyEnv)
		} else {
			hint = fmt.Sprintf("no key was sent: set $%s", e.keyEnv)
		}
	case code == http.StatusNotFound:
		hint = fmt.Sprintf("nothing answered at %s for model %q: check the base URL (%s) and the model (--model, $MELMUX_AGENT_MODEL or [agent] model)",
			e.url, e.model, e.baseHint())
	case code == http.StatusTooManyRequests:
		hint = "rate limited: wait a little and try again, or check the account's quota"
	case code >= 500:
		hint = "the endpoint failed: try again later"
	case code == http.StatusBadRequest || code == http.StatusUnprocessableEntity:
		hint = "the endpoint refused the request; if it speaks of tools, the model may not support tool calls (pick another with --model)"
	case code == http.StatusRequestEntityTooLarge:
		hint = "the conversation is too large for the endpoint: start a new one"
	}
	return e.fail(resp.StatusCode, msg, hint, nil)
}

func (e *endpoint) baseHint() string {
	return fmt.Sprintf("$%s or [agent] base_url", e.baseEnv)
}

// errorBody reads what an error response says: the message of the usual
// JSON shapes ({"error":{"message"}}, {"error":"..."}, {"message"}), or the
// start of the text.
func errorBody(r io.Reader) string {
	raw, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	var shaped struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &shaped) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(shaped.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(shaped.Error, &s) == nil && s != "":
			return s
		case shaped.Message != "":
			return shaped.Message
		}
	}
	text := strings.TrimSpace(string(raw))
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	return text
}
