package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/melmux/melmux/internal/modeltest"
)

// TestAgentScript runs the scripts of testdata/agent: melmux agents (the
// real binary, in real panes) against a scripted model server started by
// the script itself with `fakemodel`.
func TestAgentScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/agent",
		Setup: setupScriptEnv,
		Cmds:  map[string]func(*testscript.TestScript, bool, []string){"ctl": ctlCmd, "fakemodel": fakeModelCmd},
	})
}

// fakeModels holds each script's model server.
var fakeModels sync.Map // *testscript.TestScript → *modeltest.Server

// fakeModelCmd drives the scripted model server:
//
//	fakemodel PROTO FILE   start a relay|openai|anthropic server answering
//	                       the legs in FILE; later commands get its variables
//	fakemodel requests     print, per role, the legs asked and the tools
//	                       offered, then any problem the server saw
//	fakemodel verify       fail unless every leg was used and none broke
//	                       the round trip
func fakeModelCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fakemodel PROTO FILE | requests | verify")
	}
	if args[0] == "requests" || args[0] == "verify" {
		v, ok := fakeModels.Load(ts)
		if !ok {
			ts.Fatalf("fakemodel %s: no server started", args[0])
		}
		srv := v.(*modeltest.Server)
		if args[0] == "verify" {
			err := srv.Verify()
			if (err != nil) != neg {
				ts.Fatalf("fakemodel verify: %v", err)
			}
			return
		}
		fmt.Fprint(ts.Stdout(), describeRequests(srv))
		return
	}
	if len(args) != 2 {
		ts.Fatalf("usage: fakemodel PROTO FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	legs, err := modeltest.ParseScript(data)
	ts.Check(err)
	srv := modeltest.New(nil, args[0], legs)
	fakeModels.Store(ts, srv)
	ts.Defer(func() {
		srv.Close()
		fakeModels.Delete(ts)
	})
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		ts.Setenv(k, v)
	}
}

// describeRequests summarises what the model was sent: one line per role
// with its number of legs and the tools of its first leg, then problems.
func describeRequests(srv *modeltest.Server) string {
	type roleSum struct {
		legs  int
		tools []string
	}
	sums := map[string]*roleSum{}
	var b strings.Builder
	for _, r := range srv.Requests() {
		s := sums[r.Role]
		if s == nil {
			s = &roleSum{tools: r.Tools}
			sums[r.Role] = s
		}
		s.legs++
		if r.Problem != "" {
			fmt.Fprintf(&b, "mismatch (%s leg %d): %s\n", r.Role, r.Leg, r.Problem)
		}
	}
	roles := make([]string, 0, len(sums))
	for r := range sums {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	var out strings.Builder
	for _, r := range roles {
		fmt.Fprintf(&out, "%s legs=%d tools=%s\n", r, sums[r].legs, strings.Join(sums[r].tools, ","))
	}
	for _, p := range srv.Problems() {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	return out.String() + b.String()
}
