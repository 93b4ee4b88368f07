package streams

import (
	"fmt"
	"math/rand"
	"strings"
)

// Kinds lists the streams by name.
var Kinds = []string{"plain", "sgr", "cursor", "ink", "clears"}

// Describe says what each stream is, for reports.
var Describe = map[string]string{
	"plain":  "numbered 100-character lines of text",
	"sgr":    "numbered lines of nine words, each in its own 256-colour foreground, every other one bold",
	"cursor": "a top-like redraw: cursor addressing, erase to line end, short fields, a reverse-video header",
	"ink":    "an agent UI as Ink draws it: erase the live area upwards, reprint spinner, text and a box; committed lines scroll",
	"clears": "clear the screen, then a line feed, over and over",
}

// Last is the final line of every stream of the kind: what the screen
// shows last.
func Last(kind string) string { return "END OF " + strings.ToUpper(kind) + " STREAM" }

// Generate returns about size bytes of the named stream (at least one
// repetition of its pattern), or an error naming the kinds there are.
func Generate(kind string, size int) ([]byte, error) {
	var b strings.Builder
	b.Grow(size + 4096)
	rng := rand.New(rand.NewSource(1))
	switch kind {
	case "plain":
		pad := "the quick brown fox jumps over the lazy dog 0123456789 the quick brown fox jumps over the lazy dog."
		for i := 1; b.Len() < size; i++ {
			fmt.Fprintf(&b, "%09d %s\n", i, pad[:90])
		}
	case "sgr":
		for i := 1; b.Len() < size; i++ {
			fmt.Fprintf(&b, "%09d", i)
			for w := 0; w < 9; w++ {
				bold := ""
				if w%2 == 1 {
					bold = "1;"
				}
				fmt.Fprintf(&b, " \x1b[%s38;5;%dmword%05d\x1b[0m", bold, (i+w)%256, w)
			}
			b.WriteByte('\n')
		}
	case "cursor":
		words := strings.Fields("init sshd bash make go cc1 ld node python3 postgres redis nginx")
		for b.Len() < size {
			fmt.Fprintf(&b, "\x1b[%d;%dH\x1b[K%5d %-10s %5.1f", 1+rng.Intn(50), 1+rng.Intn(150), rng.Intn(99999), words[rng.Intn(len(words))], rng.Float64()*100)
			if rng.Intn(10) == 0 {
				b.WriteString("\x1b[H\x1b[2K\x1b[7m top - load average \x1b[0m\x1b[3A\x1b[2K")
			}
		}
		// The last line goes to the bottom row: tmux's remain-on-exit
		// scrolls the screen once to say the pane is dead.
		b.WriteString("\x1b[H\x1b[2J\x1b[999;1H")
	case "ink":
		ink(&b, size)
	case "clears":
		for b.Len() < size {
			b.WriteString("\x1b[2J\n")
		}
	default:
		return nil, fmt.Errorf("no stream %q: the kinds are %s", kind, strings.Join(Kinds, ", "))
	}
	b.WriteString(Last(kind) + "\n")
	return []byte(b.String()), nil
}

// ink writes frames the way Ink (React for CLIs, which Claude Code and
// others use) redraws its live area: erase the lines of the last frame
// upwards (ansi-escapes eraseLines), then write the new frame: a spinner
// line, a few lines of streamed text, a rounded box with a prompt and a
// status line, each in colour. Every fourth frame first prints a committed
// line (Ink's Static), which stays above the live area and scrolls off.
func ink(b *strings.Builder, size int) {
	spin := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	words := strings.Fields("reading files planning edits running the tests applying a patch to the parser and checking the output again")
	const width = 78
	prev := 0
	for f := 0; b.Len() < size; f++ {
		for i := 0; i < prev; i++ {
			b.WriteString("\x1b[2K")
			if i < prev-1 {
				b.WriteString("\x1b[1A")
			}
		}
		if prev > 0 {
			b.WriteString("\x1b[G")
		}
		if f%4 == 0 {
			fmt.Fprintf(b, "\x1b[32m⏺\x1b[39m Update(src/file%04d.go) \x1b[2m— %d lines changed\x1b[22m\n", f/4, f%37)
		}
		lines := 0
		fmt.Fprintf(b, "\x1b[38;5;174m%s\x1b[39m \x1b[1mWorking…\x1b[22m \x1b[2m(%ds · esc to interrupt)\x1b[22m\n", spin[f%len(spin)], f/10)
		lines++
		for k := 0; k < 3; k++ {
			var l strings.Builder
			for l.Len() < width-12 {
				l.WriteString(words[(f+k+l.Len())%len(words)])
				l.WriteByte(' ')
			}
			fmt.Fprintf(b, "  %s\n", l.String())
			lines++
		}
		fmt.Fprintf(b, "\x1b[38;5;244m╭%s╮\x1b[39m\n", strings.Repeat("─", width-2))
		fmt.Fprintf(b, "\x1b[38;5;244m│\x1b[39m > %-*s\x1b[38;5;244m│\x1b[39m\n", width-5, strings.Repeat("x", f%40))
		fmt.Fprintf(b, "\x1b[38;5;244m╰%s╯\x1b[39m\n", strings.Repeat("─", width-2))
		fmt.Fprintf(b, "  \x1b[2m? for shortcuts\x1b[22m%*s\x1b[33m%d tokens\x1b[39m", width-30, "", f*13)
		lines += 4
		prev = lines
	}
	b.WriteString("\n")
}
