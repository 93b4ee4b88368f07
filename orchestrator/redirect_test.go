package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recorder is an endpoint that counts what reaches it: requests, and the
// key and body bytes among them.
type recorder struct {
	mu     sync.Mutex
	reqs   int
	keys   []string // the x-api-key or bearer token of each request, "" when none
	bodies int      // bytes of the bodies
	srv    *httptest.Server
}

func newRecorder(t *testing.T, tls bool, answer http.HandlerFunc) *recorder {
	r := &recorder{}
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs++
		r.keys = append(r.keys, req.Header.Get("X-Api-Key")+strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "))
		r.bodies += len(b)
		r.mu.Unlock()
		answer(w, req)
	})
	if tls {
		r.srv = httptest.NewTLSServer(h)
	} else {
		r.srv = httptest.NewServer(h)
	}
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("%d requests, keys %q, %d body bytes", r.reqs, r.keys, r.bodies)
}

// A redirect from the endpoint is never followed: not to another host (a
// 307 or 308 would send the conversation, and Anthropic's X-Api-Key, on to
// it; Go strips only Authorization, and not for another port of the same
// host), not from https to http, not on the same host (a 301/302/303 would
// turn the POST into a GET). The error names the status and the target and
// the base URL to set; it is not retried.
func TestRedirectIsNeverFollowed(t *testing.T) {
	for _, proto := range []string{ProviderAnthropic, ProviderOpenAI, ProviderRelay} {
		for _, code := range []int{301, 302, 303, 307, 308} {
			for _, where := range []string{"another port", "another host", "https to http", "same host"} {
				t.Run(fmt.Sprintf("%s/%d/%s", proto, code, where), func(t *testing.T) {
					second := newRecorder(t, false, func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "not the endpoint", 500) })
					var target string
					first := newRecorder(t, where == "https to http", func(w http.ResponseWriter, r *http.Request) {
						if r.URL.Query().Get("moved") != "" { // the same-host target
							http.Error(w, "not the endpoint", 500)
							return
						}
						http.Redirect(w, r, target+r.URL.Path, code)
					})
					target = second.srv.URL
					var hc *http.Client
					switch where {
					case "another host":
						target = strings.Replace(target, "127.0.0.1", "localhost", 1)
					case "https to http":
						hc = first.srv.Client()
					case "same host":
						target = first.srv.URL + "/moved"
					}
					sl := &sleeps{}
					s := Settings{Provider: proto, Model: "m", BaseURL: first.srv.URL, Key: "sk-secret"}
					p, err := NewProvider(s, hc, WithRetry(testRetry(sl)))
					if err != nil {
						t.Fatal(err)
					}
					_, err = p.Leg(context.Background(), Request{Messages: []Message{{Role: "user", Content: "the whole conversation"}}}, nil)
					var le *LegError
					if !errors.As(err, &le) || le.Status != code {
						t.Fatalf("err = %v, want a LegError with status %d", err, code)
					}
					for _, want := range []string{"the endpoint redirected to " + target, "melmux does not follow redirects", "set the ", "to the final address, " + target, baseEnvOf(proto)} {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("err = %v, want it to say %q", err, want)
						}
					}
					if where == "https to http" && !strings.Contains(err.Error(), "(from https to plain http)") {
						t.Errorf("err = %v, want it to say the redirect leaves https", err)
					}
					if got := second.got(); second.reqs != 0 {
						t.Errorf("the redirect's target received %s, want nothing", got)
					}
					if first.reqs != 1 || len(sl.waits()) != 0 {
						t.Errorf("the endpoint received %s after %d retries, want one request", first.got(), len(sl.waits()))
					}
					if hc != nil && hc.CheckRedirect != nil {
						t.Errorf("NewProvider changed the caller's client")
					}
				})
			}
		}
	}
}

// A redirect without a Location says so.
func TestRedirectWithoutTarget(t *testing.T) {
	srv := newRecorder(t, false, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTemporaryRedirect) })
	p := against(t, ProviderAnthropic, srv.srv.URL, testRetry(&sleeps{}))
	_, err := p.Leg(context.Background(), Request{}, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 307: the endpoint answered with a redirect that names no address (no Location header)") ||
		!strings.Contains(err.Error(), "$ANTHROPIC_BASE_URL") {
		t.Errorf("err = %v, want it to say the redirect names no address, and the variable", err)
	}
}
