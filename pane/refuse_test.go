package pane

import (
	"errors"
	"testing"
)

// Refused input fails with the reason given, queues nothing, and goes in
// again once the refusal is lifted.
func TestRefusedInputSaysWhy(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", `read x; echo "got $x"; read y`)
	why := errors.New("the link to h1 dropped")
	p.RefuseInput(why)
	for name, err := range map[string]error{"Type": p.Type([]byte("lost\r")), "Write": p.Write([]byte("lost\r"))} {
		if !errors.Is(err, why) {
			t.Fatalf("%s while refused: %v, want %v", name, err, why)
		}
	}
	p.RefuseInput(nil)
	if err := p.Type([]byte("kept\r")); err != nil {
		t.Fatal(err)
	}
	got := readScreen(t, p, "got ")
	if got != "got kept" {
		t.Fatalf("the program read %q, want only what was typed after the refusal", got)
	}
}
