package corpus

import (
	"fmt"
	"strings"
)

// The generated shapes are output patterns seen from everyday programs
// that the five streams of bench/streams leave out, each a 200x50 pattern
// repeated: one repetition of each (about 100-200 KB) is the stream, and a
// benchmark repeats it as it does a recording. Line ends are "\r\n", as a
// terminal receives them.
var shapes = []struct {
	name, about string
	gen         func() []byte
}{
	{"shape-watch", "a status line then ESC[2J, over and over, never homing (watch-style without the home)", shapeWatch},
	{"shape-homeclear", "ESC[H ESC[2J then one line, over and over", shapeHomeClear},
	{"shape-logclear", "60 log lines then ESC[2J, over and over", shapeLogClear},
	{"shape-region", "a log scrolling in ESC[2;48r under a status line and over a progress line", shapeRegion},
	{"shape-ri", "reverse index at the top row (ESC M) then a line: newest first", shapeRI},
}

// clock is a wall-clock-looking time for frame i.
func clock(i int) string {
	return fmt.Sprintf("Tue Dec  1 %02d:%02d:%02d.%03d UTC 2026", 12+i/360000%12, i/6000%60, i/100%60, i%100*10)
}

func logLine(i int) string {
	levels := []string{"INFO ", "DEBUG", "INFO ", "WARN ", "INFO "}
	return fmt.Sprintf("2026-12-01T%s %s request id=%08x method=GET path=/api/v1/items/%d status=%d bytes=%d dur=%dms",
		clock(i)[11:23], levels[i%len(levels)], i*2654435761%(1<<32), i%977, []int{200, 200, 304, 404, 200, 500}[i%6], 100+i*37%9000, i*7%250)
}

func shapeWatch() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 150_000; i++ {
		fmt.Fprintf(&b, "Every 0.1s: date%*s%s\r\n\x1b[2J", 200-16-34, "build-host: ", clock(i))
	}
	return []byte(b.String())
}

func shapeHomeClear() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 150_000; i++ {
		fmt.Fprintf(&b, "\x1b[H\x1b[2J%s  jobs: %d running, %d queued\r\n", clock(i), i%7, i%13)
	}
	return []byte(b.String())
}

func shapeLogClear() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 200_000; i++ {
		b.WriteString(logLine(i))
		b.WriteString("\r\n")
		if i%60 == 59 {
			b.WriteString("\x1b[2J")
		}
	}
	return []byte(b.String())
}

func shapeRegion() []byte {
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J\x1b[2;48r")
	for i := 0; b.Len() < 200_000; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&b, "\x1b7\x1b[1;1H\x1b[7m deploy: %4d/%d steps  %s \x1b[K\x1b[0m\x1b8", i, 10000, clock(i))
		}
		fmt.Fprintf(&b, "\x1b[48;1H\r\n%s", logLine(i))
		if i%5 == 0 {
			pct := i * 100 / 10000
			fmt.Fprintf(&b, "\x1b7\x1b[50;1H\x1b[2K[%-50s] %3d%%\x1b8", strings.Repeat("#", pct/2), pct)
		}
	}
	b.WriteString("\x1b[r\x1b[50;1H\r\n")
	return []byte(b.String())
}

func shapeRI() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 150_000; i++ {
		fmt.Fprintf(&b, "\x1b[H\x1bM%s", logLine(i))
	}
	b.WriteString("\x1b[50;1H\r\n")
	return []byte(b.String())
}
