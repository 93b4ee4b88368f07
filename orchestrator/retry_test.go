package orchestrator

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/modeltest"
)

var callsLeg = modeltest.Leg{Text: "reading", Calls: []modeltest.Call{{Name: "read_file", Arguments: `{"path":"a"}`, ID: "c1"}}}

// A connection that closes before any event is retried, for every
// provider, and the calls of the retried leg come back once.
func TestRetryDropBeforeAnyEvent(t *testing.T) {
	for _, proto := range providers {
		t.Run(proto, func(t *testing.T) {
			srv, p, sl := fakeEndpoint(t, proto, modeltest.Leg{Fail: modeltest.FailDrop}, callsLeg)
			reply, sink, err := runLeg(t, p, Request{})
			if err != nil {
				t.Fatal(err)
			}
			wantCalls(t, reply.Calls, ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`})
			if strings.Join(sink.pieces, "") != "reading" {
				t.Errorf("text shown %q", sink.pieces)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
			if got := sl.waits(); !reflect.DeepEqual(got, []time.Duration{DefaultRetryBase}) {
				t.Errorf("waits %v", got)
			}
		})
	}
}

// A 200 stream that ends before its first event showed nothing: retried.
func TestRetryEmptyStream(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "text/event-stream")
		if n > 1 {
			w.Write([]byte("event: done\ndata: {}\n\n"))
		}
	}))
	defer srv.Close()
	sl := &sleeps{}
	p := against(t, ProviderRelay, srv.URL, testRetry(sl))
	if _, _, err := runLeg(t, p, Request{}); err != nil || n != 2 {
		t.Fatalf("err %v after %d requests", err, n)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name, header string
		want         time.Duration
	}{
		{"seconds", "7", 7 * time.Second},
		{"fractional seconds", "0.5", 500 * time.Millisecond},
		{"an HTTP date", now.Add(12 * time.Second).Format(http.TimeFormat), 12 * time.Second},
		{"a date in the past", now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"capped", "3600", DefaultRetryCap},
		{"unreadable: the backoff", "soon", DefaultRetryBase},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n++
				if n == 1 {
					w.Header().Set("Retry-After", c.header)
					http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte("event: done\ndata: {}\n\n"))
			}))
			defer srv.Close()
			sl := &sleeps{}
			pol := testRetry(sl)
			pol.Now = func() time.Time { return now }
			var heard []time.Duration
			pol.OnRetry = func(try int, wait time.Duration, err error) {
				if try != 1 || !strings.Contains(err.Error(), "HTTP 429: slow down") {
					t.Errorf("OnRetry(%d, %v, %v)", try, wait, err)
				}
				heard = append(heard, wait)
			}
			p := against(t, ProviderRelay, srv.URL, pol)
			if _, _, err := runLeg(t, p, Request{}); err != nil {
				t.Fatal(err)
			}
			if got := sl.waits(); !reflect.DeepEqual(got, []time.Duration{c.want}) || !reflect.DeepEqual(heard, got) {
				t.Errorf("waited %v (heard %v), want %v", got, heard, c.want)
			}
		})
	}
}

// The script's 429 with retry_after, through a real provider.
func TestRetry429Scripted(t *testing.T) {
	srv, p, sl := fakeEndpoint(t, modeltest.OpenAI, modeltest.Leg{Fail: "429", RetryAfter: 4}, modeltest.Leg{Text: "ok"})
	reply, _, err := runLeg(t, p, Request{})
	if err != nil || reply.Text != "ok" || len(srv.Requests()) != 2 {
		t.Fatalf("reply %+v, err %v, %d requests", reply, err, len(srv.Requests()))
	}
	if got := sl.waits(); !reflect.DeepEqual(got, []time.Duration{4 * time.Second}) {
		t.Errorf("waits %v", got)
	}
}

// 5xx is retried with a doubling backoff, three tries in all.
func TestRetryServerErrorsThreeTries(t *testing.T) {
	srv, p, sl := fakeEndpoint(t, modeltest.Anthropic,
		modeltest.Leg{Fail: "500"}, modeltest.Leg{Fail: "529", Message: "Overloaded"}, modeltest.Leg{Fail: "503"}, modeltest.Leg{Text: "never"})
	_, _, err := runLeg(t, p, Request{})
	le := wantLegError(t, err, 503, "gave up after 3 tries", "try again later")
	if le.Provider != ProviderAnthropic {
		t.Errorf("provider %q", le.Provider)
	}
	if n := len(srv.Requests()); n != 3 || srv.Remaining() != 1 {
		t.Errorf("%d requests, %d legs left; want 3 and 1", n, srv.Remaining())
	}
	if got := sl.waits(); !reflect.DeepEqual(got, []time.Duration{DefaultRetryBase, 2 * DefaultRetryBase}) {
		t.Errorf("waits %v", got)
	}
}

func TestRetryPolicyWaits(t *testing.T) {
	p := RetryPolicy{Base: 100 * time.Millisecond, Cap: time.Second}.withDefaults()
	var got []time.Duration
	for try := 1; try <= 6; try++ {
		got = append(got, p.wait(try, nil))
	}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
}

// Once an event arrived nothing is retried: the text was shown, and the
// leg fails with no calls.
func TestNoRetryAfterAnEvent(t *testing.T) {
	for _, proto := range providers {
		for _, fail := range []string{modeltest.FailDropAfterText, modeltest.FailError} {
			t.Run(proto+"/"+fail, func(t *testing.T) {
				srv, p, sl := fakeEndpoint(t, proto, modeltest.Leg{Text: "partial answer", Fail: fail, Message: "model fell over"}, callsLeg)
				_, _, err := runLeg(t, p, Request{})
				if err == nil {
					t.Fatal("no error")
				}
				wantLegError(t, err, 0)
				if fail == modeltest.FailError && !strings.Contains(err.Error(), "model fell over") {
					t.Errorf("error %q does not carry the event's message", err)
				}
				if n := len(srv.Requests()); n != 1 || len(sl.waits()) != 0 {
					t.Errorf("%d requests, waits %v; want 1 and none", n, sl.waits())
				}
			})
		}
	}
}

// For OpenAI and Anthropic a stream that breaks after the calls were sent
// but before its end fails with no calls, so half a leg never runs.
func TestBrokenAfterCallsReturnsNoCalls(t *testing.T) {
	for _, proto := range []string{ProviderOpenAI, ProviderAnthropic} {
		t.Run(proto, func(t *testing.T) {
			srv, p, _ := fakeEndpoint(t, proto, modeltest.Leg{Fail: modeltest.FailDropAfterCalls, Calls: callsLeg.Calls}, callsLeg)
			reply, _, err := runLeg(t, p, Request{})
			if err == nil || reply.Calls != nil || len(srv.Requests()) != 1 {
				t.Fatalf("reply %+v, err %v, %d requests", reply, err, len(srv.Requests()))
			}
			wantLegError(t, err, 0, "the stream broke")
		})
	}
}

// The relay's tool_calls event completes the leg: a break after it does not
// take the calls back, and nothing is retried (the calls run once).
func TestRelayDropAfterToolCalls(t *testing.T) {
	srv, p, sl := fakeEndpoint(t, modeltest.Relay, modeltest.Leg{Text: "reading", Fail: modeltest.FailDropAfterCalls, Calls: callsLeg.Calls}, callsLeg)
	reply, _, err := runLeg(t, p, Request{})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls(t, reply.Calls, ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`})
	if reply.Usage != (Usage{10, 5}) || len(srv.Requests()) != 1 || len(sl.waits()) != 0 {
		t.Errorf("usage %+v, %d requests, waits %v", reply.Usage, len(srv.Requests()), sl.waits())
	}
}

// Other refusals are not retried and say what to do.
func TestRefusalsSayWhatToDo(t *testing.T) {
	cases := []struct {
		proto, status string
		says          []string
	}{
		{modeltest.OpenAI, "401", []string{"openai: HTTP 401: modeltest refused", "the key in $OPENAI_API_KEY was refused"}},
		{modeltest.Anthropic, "403", []string{"the key in $ANTHROPIC_API_KEY was refused"}},
		{modeltest.Relay, "404", []string{"nothing answered at http://", "/relay for model \"test-model\"", "$MELMUX_RELAY_URL or [agent] base_url"}},
		{modeltest.OpenAI, "400", []string{"may not support tool calls"}},
		{modeltest.OpenAI, "413", []string{"too large"}},
	}
	for _, c := range cases {
		t.Run(c.proto+"/"+c.status, func(t *testing.T) {
			srv, p, sl := fakeEndpoint(t, c.proto, modeltest.Leg{Fail: c.status, Message: "modeltest refused"}, modeltest.Leg{Text: "never"})
			_, _, err := runLeg(t, p, Request{})
			status, _ := strconv.Atoi(c.status)
			le := wantLegError(t, err, status, c.says...)
			if le.Hint == "" || le.Message != "modeltest refused" {
				t.Errorf("message %q hint %q", le.Message, le.Hint)
			}
			if len(srv.Requests()) != 1 || len(sl.waits()) != 0 {
				t.Errorf("retried: %d requests", len(srv.Requests()))
			}
		})
	}
}

func TestNoKeySent(t *testing.T) {
	srv := modeltest.New(t, modeltest.OpenAI, []modeltest.Leg{{Fail: "401"}})
	p, err := NewProvider(Settings{Provider: ProviderOpenAI, Model: "m", BaseURL: srv.URL(), KeyEnv: "MY_KEY"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = runLeg(t, p, Request{})
	wantLegError(t, err, 401, "no key was sent: set $MY_KEY")
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q without a key", h)
	}
}

// Nothing listening: three tries, then an error naming the URL.
func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	sl := &sleeps{}
	p := against(t, ProviderOpenAI, url+"/v1", testRetry(sl))
	_, _, err := runLeg(t, p, Request{})
	wantLegError(t, err, 0, "could not reach "+url+"/v1/chat/completions", "gave up after 3 tries", "$OPENAI_BASE_URL or [agent] base_url")
	if len(sl.waits()) != 2 {
		t.Errorf("waits %v, want 2", sl.waits())
	}
}

// A 200 answered with JSON or a web page is not a stream; saying so beats
// retrying.
func TestNotAStream(t *testing.T) {
	for ct, body := range map[string]string{
		"application/json; charset=utf-8": `{"error":"streaming is off"}`,
		"text/html":                       "<html>Welcome to nginx</html>",
	} {
		n := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n++
			w.Header().Set("Content-Type", ct)
			w.Write([]byte(body))
		}))
		p := against(t, ProviderRelay, srv.URL, RetryPolicy{})
		_, _, err := runLeg(t, p, Request{})
		want := "not an event stream: streaming is off"
		if ct == "text/html" {
			want = "answered text/html, not an event stream: <html>Welcome"
		}
		wantLegError(t, err, 200, want, "$MELMUX_RELAY_URL")
		if n != 1 {
			t.Errorf("%s: %d requests", ct, n)
		}
		srv.Close()
	}
}

// A 200 whose body is neither an event stream nor JSON (a proxy's text, a
// misconfigured server) is said to be so, naming what came, quoted and
// bounded: it was "the stream ended before its done event", as if a stream
// had broken.
func TestGarbageAnswer(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, proto := range providers {
		for _, tc := range []struct{ ct, body, want string }{
			{"text/plain", "Service rerouted.\nCome back later.\n", `answered text/plain, not an event stream: "Service rerouted.\nCome back later.\n"`},
			{"", long, `answered with no Content-Type, not an event stream: "` + long[:200] + `"…`},
		} {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n++
				w.Header()["Content-Type"] = nil // not sniffed
				if tc.ct != "" {
					w.Header().Set("Content-Type", tc.ct)
				}
				w.Write([]byte(tc.body))
			}))
			p := against(t, proto, srv.URL, RetryPolicy{})
			_, _, err := runLeg(t, p, Request{})
			le := wantLegError(t, err, 200, tc.want)
			if strings.Contains(err.Error(), "ended before") || le.Hint == "" {
				t.Errorf("%s %q: %v (hint %q)", proto, tc.ct, err, le.Hint)
			}
			if n != 1 {
				t.Errorf("%s %q: %d requests, want 1 (not retried)", proto, tc.ct, n)
			}
			srv.Close()
		}
	}
}

// Cancelling the context ends a leg that is waiting for the model at once,
// with an error that is context.Canceled and not a provider error.
func TestCancelDuringLeg(t *testing.T) {
	for _, proto := range providers {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(t, proto, []modeltest.Leg{{Text: "late", DelayMS: 3600_000}})
			p := against(t, proto, srv.URL(), RetryPolicy{})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := p.Leg(ctx, Request{}, nil)
				done <- err
			}()
			if err := srv.Wait(ctx, 1); err != nil { // the request is held by the server
				t.Fatal(err)
			}
			cancel()
			err := <-done
			if !errors.Is(err, context.Canceled) || errors.Is(err, ErrProvider) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// Cancelling during a retry's wait ends the leg too.
func TestCancelDuringRetryWait(t *testing.T) {
	srv := modeltest.New(t, modeltest.Relay, []modeltest.Leg{{Fail: "503"}, {Text: "never"}})
	ctx, cancel := context.WithCancel(context.Background())
	p := against(t, ProviderRelay, srv.URL(), RetryPolicy{Base: time.Hour, OnRetry: func(int, time.Duration, error) { cancel() }})
	_, err := p.Leg(ctx, Request{}, nil)
	if !errors.Is(err, context.Canceled) || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v after %d requests", err, len(srv.Requests()))
	}
}

// An endpoint that goes silent fails the try after RetryPolicy.Idle: before
// any event it is retried like a dropped connection, after one the error
// says what happened (the relay's stream starts with nothing; the others
// send an event before the held answer).
func TestSilentEndpoint(t *testing.T) {
	for _, proto := range providers {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(nil, proto, []modeltest.Leg{{Text: "late", DelayMS: 3600_000}, {Text: "ok"}})
			t.Cleanup(srv.Close)
			sl := &sleeps{}
			p := against(t, proto, srv.URL(), RetryPolicy{Idle: 100 * time.Millisecond, Sleep: sl.sleep})
			reply, _, err := runLeg(t, p, Request{})
			if proto == ProviderRelay {
				if err != nil || reply.Text != "ok" || len(sl.waits()) != 1 {
					t.Fatalf("reply %q err %v after waits %v", reply.Text, err, sl.waits())
				}
				return
			}
			wantLegError(t, err, 0, "the endpoint sent nothing for 100ms", "$"+IdleEnv)
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: a try that had events was retried", n)
			}
		})
	}
}

func TestIdleFromEnv(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 0, "30m": 30 * time.Minute, "0": -1, "0s": -1} {
		got, err := IdleFromEnv(func(string) string { return v })
		if err != nil || got != want {
			t.Errorf("%q: got %v %v, want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"soon", "-1s", "10"} {
		if _, err := IdleFromEnv(func(string) string { return v }); err == nil || !strings.Contains(err.Error(), IdleEnv) {
			t.Errorf("%q: err %v", v, err)
		}
	}
}
