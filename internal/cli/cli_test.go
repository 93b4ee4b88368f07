package cli

import (
	"bytes"
	"strings"
	"testing"
)

// A real verb wins over a stand-in of the same name whichever registers
// first: cmd/melmux's tests link both, in an init order nobody chose.
func TestRealVerbReplacesStandIn(t *testing.T) {
	ran := func(tag string) func(*Globals, []string) error {
		return func(g *Globals, _ []string) error {
			_, err := g.Stdout.Write([]byte(tag))
			return err
		}
	}
	for _, order := range []string{"stand-in first", "real first"} {
		t.Run(order, func(t *testing.T) {
			t.Cleanup(func() { delete(verbs, "x-test") })
			real := &Verb{Name: "x-test", Run: ran("real")}
			standIn := &Verb{Name: "x-test", Run: ran("stand-in"), StandIn: true}
			if order == "real first" {
				Register(real)
				Register(standIn)
			} else {
				Register(standIn)
				Register(real)
			}
			var out, errOut bytes.Buffer
			if code := Run([]string{"x-test"}, strings.NewReader(""), &out, &errOut, nil); code != 0 || out.String() != "real" {
				t.Errorf("exit %d, ran %q (stderr %q), want the real verb", code, out.String(), errOut.String())
			}
		})
	}
}

func TestRegisterTwiceIsRefused(t *testing.T) {
	for _, standIn := range []bool{false, true} {
		func() {
			defer delete(verbs, "x-test")
			Register(&Verb{Name: "x-test", StandIn: standIn})
			defer func() {
				if recover() == nil {
					t.Errorf("a second registration (stand-in %v) did not panic", standIn)
				}
			}()
			Register(&Verb{Name: "x-test", StandIn: standIn})
		}()
	}
}

// The stand-ins and the real verbs share one description, so `melmux help`
// shows what melmux-agent runs.
func TestAgentVerbs(t *testing.T) {
	names := AgentVerbNames()
	if strings.Join(names, " ") != "agent mcp tool tools" {
		t.Fatalf("agent verbs %q", names)
	}
	for _, n := range names {
		v := AgentVerb(n, nil, true)
		if v.Name != n || v.Usage == "" || v.Summary == "" || !v.StandIn {
			t.Errorf("AgentVerb(%q) = %+v", n, v)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"attach" is not a verb of melmux-agent`) {
			t.Errorf("AgentVerb of another verb: panic %v", r)
		}
	}()
	AgentVerb("attach", nil, false)
}
