package agentstate

import (
	"testing"
	"time"
)

// BenchmarkDecide is one decision on a captured 120x38 screen: what a
// pane's watcher pays at most 20 times a second while its agent prints.
func BenchmarkDecide(b *testing.B) {
	for _, file := range []string{"claude_waiting.txt", "codex_working.txt"} {
		b.Run(file, func(b *testing.B) {
			s := readScreen(b, file)
			e := NewEngine(Default())
			now := time.Now()
			sig := Signals{Running: true, Kind: "claude", Screen: s, LastOutput: now, Outputs: []time.Time{now, now}}
			if file == "codex_working.txt" {
				sig.Kind = "codex"
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sig.Now = now.Add(time.Duration(i) * time.Millisecond)
				e.Decide(sig)
			}
		})
	}
}

// BenchmarkBuiltinRules is what the first use of the built-in rules costs a
// process (Default): the spec and its compile, then a lookup of a kind by
// process, which is all a pane that runs no agent asks of them.
func BenchmarkBuiltinRules(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		spec, _ := BuiltinSpec()
		r, err := compile(spec, trustedPattern)
		if err != nil {
			b.Fatal(err)
		}
		r.KindOfProcs([]Proc{{PID: 1, Argv: []string{"sh", "-c", "true"}}})
	}
}
