package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// postWith is post with the cookie of a login.
func (r *rig) postWith(cookie *http.Cookie, body string) int {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.base+"/login", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", r.base)
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTheLimitLetsThePersonIn: someone guessing locks logins out for a
// minute, but not the person: a code just printed by `melmux web` logs in,
// and so does a browser already logged in; an older code, a token and a
// made-up code wait, and a logged-in browser that guesses is limited too.
func TestTheLimitLetsThePersonIn(t *testing.T) {
	r := start(t)
	secret := r.token("a", false)
	in := r.login(r.token("ro", true)) // logged in before the guessing
	old := r.srv.NewCode()
	r.srv.mu.Lock()
	r.srv.codes[sum(old)] = time.Now().Add(codeLife - 2*codeFresh) // printed two minutes ago
	r.srv.mu.Unlock()
	for i := range failsAllowed {
		if c := r.post("/login", r.base, fmt.Sprintf(`{"token":"mmx_guess%d"}`, i)).StatusCode; c != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d, want 401", i, c)
		}
	}
	for what, body := range map[string]string{
		"the right token":      `{"token":"` + secret + `"}`,
		"a made-up code":       `{"code":"` + randomHex(16) + `"}`,
		"a code 2 minutes old": `{"code":"` + old + `"}`,
		"a malformed login":    `{"code":`,
	} {
		if c := r.post("/login", r.base, body).StatusCode; c != http.StatusTooManyRequests {
			t.Errorf("%s past the limit: %d, want 429", what, c)
		}
	}
	fresh := r.srv.NewCode()
	if c := r.post("/login", r.base, `{"code":"`+fresh+`"}`).StatusCode; c != http.StatusOK {
		t.Errorf("a code just printed past the limit: %d, want 200", c)
	}
	if c := r.post("/login", r.base, `{"code":"`+fresh+`"}`).StatusCode; c != http.StatusTooManyRequests {
		t.Errorf("the used code again past the limit: %d, want 429", c)
	}
	if c := r.postWith(in, `{"token":"`+secret+`"}`); c != http.StatusOK {
		t.Errorf("a logged-in browser logging in with a token past the limit: %d, want 200", c)
	}
	// The cookie is no way around the limit for guessing: its own
	// failures are counted and limited.
	for i := range failsAllowed {
		if c := r.postWith(in, fmt.Sprintf(`{"token":"mmx_again%d"}`, i)); c != http.StatusUnauthorized {
			t.Fatalf("a logged-in browser's guess %d: %d, want 401", i, c)
		}
	}
	if c := r.postWith(in, `{"token":"`+secret+`"}`); c != http.StatusTooManyRequests {
		t.Errorf("a logged-in browser that guessed %d times: %d, want 429", failsAllowed, c)
	}
}
