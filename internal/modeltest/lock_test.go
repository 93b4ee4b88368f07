package modeltest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/modeltest"
)

// errorfPanics is a test's TB whose Errorf panics, as testing's does once
// the test that made the server has completed while the server still
// answers a request.
type errorfPanics struct{ testing.TB }

func (errorfPanics) Errorf(string, ...any) { panic("Errorf after the test completed") }

// Cleanup registers nothing: the test closes the server itself, and must
// not wait on a Close that a held lock would block for ever.
func (errorfPanics) Cleanup(func()) {}

// A problem reported with t.Errorf is reported under the server's lock:
// when that panics (net/http recovers it for the request), the lock is
// still let go, so the server answers the calls after and closes.
func TestErrorfPanicLeavesServerUnlocked(t *testing.T) {
	srv := modeltest.New(errorfPanics{t}, modeltest.OpenAI, []modeltest.Leg{{Text: "x"}})
	resp, err := http.Post(srv.URL()+"/completions", "application/json", strings.NewReader(`{}`))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("the request whose problem panics was answered %s; want its connection dropped by net/http's recover", resp.Status)
	}
	done := make(chan []string)
	go func() {
		problems := srv.Problems()
		srv.Close()
		done <- problems
	}()
	select {
	case problems := <-done:
		if len(problems) != 1 || !strings.Contains(problems[0], "answers POST /v1/chat/completions") {
			t.Errorf("problems %q, want the wrong path's", problems)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Problems and Close still wait after 30 s: the panic left the server's lock held")
	}
}
