package streams

import (
	"fmt"
	"math/rand"
	"strings"
)

// Kinds lists the streams by name.
var Kinds = []string{"plain", "sgr", "cursor", "ink", "clears", "watch", "homeclear", "logclear", "region", "ri"}

// Describe says what each stream is, for reports.
var Describe = map[string]string{
	"plain":     "numbered 100-character lines of text",
	"sgr":       "numbered lines of nine words, each in its own 256-colour foreground, every other one bold",
	"cursor":    "a top-like redraw: cursor addressing, erase to line end, short fields, a reverse-video header",
	"ink":       "an agent UI as Ink draws it: erase the live area upwards, reprint spinner, text and a box; committed lines scroll",
	"clears":    "clear the screen, then a line feed, over and over",
	"watch":     "a status line then ESC[2J, over and over, never homing: each clear scrolls what is on the screen into history",
	"homeclear": "ESC[H ESC[2J then one line, over and over (clear and redraw)",
	"logclear":  "60 log lines then ESC[2J, over and over",
	"region":    "a log scrolling in the region ESC[2;48r under a status line and over a progress line, both drawn between ESC 7 and ESC 8",
	"ri":        "reverse index at the top row (ESC M) then a line, over and over: a pager scrolling back",
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
	case "watch":
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "Every 0.1s: date%*s%s\n\x1b[2J", 200-16-34, "build-host: ", clock(i))
		}
	case "homeclear":
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "\x1b[H\x1b[2J%s  jobs: %d running, %d queued\n", clock(i), i%7, i%13)
		}
	case "logclear":
		for i := 0; b.Len() < size; i++ {
			b.WriteString(logLine(i))
			b.WriteByte('\n')
			if i%60 == 59 {
				b.WriteString("\x1b[2J")
			}
		}
	case "region":
		b.WriteString("\x1b[H\x1b[2J\x1b[2;48r")
		for i := 0; b.Len() < size; i++ {
			if i%10 == 0 {
				fmt.Fprintf(&b, "\x1b7\x1b[1;1H\x1b[7m deploy: %4d steps  %s \x1b[K\x1b[0m\x1b8", i, clock(i))
			}
			fmt.Fprintf(&b, "\x1b[48;1H\n%s", logLine(i))
			if i%5 == 0 {
				pct := i / 10 % 101
				fmt.Fprintf(&b, "\x1b7\x1b[50;1H\x1b[2K[%-50s] %3d%%\x1b8", strings.Repeat("#", pct/2), pct)
			}
		}
		// The region ends and the last line goes to the bottom row.
		b.WriteString("\x1b[r\x1b[50;1H\n")
	case "ri":
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "\x1b[H\x1bM%s", logLine(i))
		}
		b.WriteString("\x1b[50;1H\n")
	default:
		return nil, fmt.Errorf("no stream %q: the kinds are %s", kind, strings.Join(Kinds, ", "))
	}
	b.WriteString(Last(kind) + "\n")
	return []byte(b.String()), nil
}

// clock is a wall-clock-looking time for frame i.
func clock(i int) string {
	return fmt.Sprintf("Tue Dec  1 %02d:%02d:%02d.%03d UTC 2026", 12+i/360000%12, i/6000%60, i/100%60, i%100*10)
}

// logLine is line i of a service's request log, about 130 characters.
func logLine(i int) string {
	levels := []string{"INFO ", "DEBUG", "INFO ", "WARN ", "INFO "}
	return fmt.Sprintf("2026-12-01T%s %s request id=%08x method=GET path=/api/v1/items/%d status=%d bytes=%d dur=%dms",
		clock(i)[11:23], levels[i%len(levels)], i*2654435761%(1<<32), i%977, []int{200, 200, 304, 404, 200, 500}[i%6], 100+i*37%9000, i*7%250)
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
