package term

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestTrimIsInvisible trims the fast twin between pieces of every test
// stream (a model of the screen is written into vt10x and dropped, scratch
// let go) and requires the same state as the plain twin, which never trims.
func TestTrimIsInvisible(t *testing.T) {
	t.Parallel()
	streams := fastStreams()
	for name, s := range benchStreams() {
		streams["bench-"+name] = string(s[:min(len(s), scaled(64<<10))])
	}
	modelled := 0
	for name, s := range streams {
		for _, sz := range [][2]int{{40, 10}, {200, 50}} {
			tw := newTwins(sz[0], sz[1])
			rng := rand.New(rand.NewSource(int64(len(name))))
			for p := []byte(s); len(p) > 0; {
				n := min(1+rng.Intn(3000), len(p))
				tw.write(p[:n])
				p = p[n:]
				if tw.fast.model != nil {
					modelled++
				}
				tw.fast.Trim()
				if tw.fast.model != nil || tw.fast.out != nil || tw.fast.joined != nil {
					t.Fatalf("%s: Trim kept the model, vt10x's input or the joined write", name)
				}
			}
			tw.same(t, fmt.Sprintf("%s at %dx%d, trimmed after every piece", name, sz[0], sz[1]))
		}
	}
	if modelled == 0 {
		t.Fatal("no piece left a model of the screen: the test trims nothing worth trimming")
	}
}
