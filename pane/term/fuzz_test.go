package term

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzWrite feeds arbitrary bytes in arbitrary pieces, with occasional
// resizes (grows pull history back), and checks the invariants every caller
// relies on. It also fails on a recovered emulator panic: the scanner is
// meant to keep vt10x away from every input that makes it panic, so a
// recovery means a gap to close. A twin terminal that never reclaims cluster
// codes gets the same input while the first reclaims whenever it can: both
// must show the same cells and history, so no code is freed while in use.
//
// Run: go test ./pane/term -run '^$' -fuzz FuzzWrite -fuzztime 5m
func FuzzWrite(f *testing.F) {
	seeds := []string{
		"\x1b[999999999999I", "\x1b[-1@", "\x1b[5G\x1b[-1P", "\x1b[999999999999Z",
		"\x1b[2147483647@\x1b[2147483647P\x1b[2147483647L\x1b[2147483647M",
		"\x1b[;5H\x1b[1;;4m", "\x1b[38:2::1:2:3m\x1b[4:3m\x1b[58:5:1m",
		"\x1b[>4;2m\x1b[?u\x1b[>1u\x1b[=1;1u\x1b[<u", "\x1b[?1049l\x1b[?47l\x1b[?1047l",
		"\x1bc", "\x1b[c\x1b[>c\x1b[5n\x1b[6n", "\x1b]0;a;b\x07\x1b]2;c\x1b\\",
		"\x1b]0;" + strings.Repeat("x", 5000), "日本\U0001F600e\u0301\u200d",
		"\x1b[3;5r\x1b[5;1H\n\n\x1bM\x1bD\x1bE\x1b[3S\x1b[2T", "\x1b[4hab\x1b[4l\x1b[5b",
		"\x1b#8\x1b(0qx\x1b(B", "\x1b[?6h\x1b[2;3r\x1b[6n", "\xff\xfe\xc3", "\x1bP+q\x1b\\",
		"C👨\u200d👩\u200d👧\u200d👦X\u200d\u200d\u4e2d\u200dx👩\u200d\u0301A🇫🇷🇫\n\u200d👩",
		"e\u0301\u0302a\u0303\x1b[?1049hq\u0307\u0308\x1b[2Jb\u0300\x1b[?1049lc\u0301\x1b[3b",
		"1\n2\n\x1b[4;31mred\u0301\n3\n4\n5\x1b(0\n6\n7",
	}
	for _, s := range seeds {
		f.Add([]byte(s), []byte{3, 7}, uint8(20), uint8(5))
	}
	// Shrinks and grows between lines (a cut with its top bit resizes).
	f.Add([]byte("1\n2\n\x1b[1mb\u0301\n3\n4\n5\n6\n7\n8"), []byte{6, 0x80 | 0x42, 6, 0x80 | 0x4a, 6}, uint8(20), uint8(9))
	if files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.in")); len(files) > 0 {
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b, []byte{200, 13, 77}, uint8(40), uint8(10))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, cols, rows uint8) {
		var panics []string
		opts := Options{
			Reply: func([]byte) {},
			Logf: func(format string, args ...any) {
				if msg := fmt.Sprintf(format, args...); strings.Contains(msg, "panic") {
					panics = append(panics, msg)
				}
			},
		}
		tm := New(int(cols%120)+1, int(rows%40)+1, opts)
		tm.clusters.floor = 1 // reclaim codes at every chance
		twin := New(int(cols%120)+1, int(rows%40)+1, opts)
		twin.clusters.reclaim = nil
		for i := 0; len(data) > 0; i++ {
			n := len(data)
			if i < len(cuts) {
				n = min(int(cuts[i]&0x7f)+1, len(data))
				if cuts[i]&0x80 != 0 {
					// Occasionally resize between writes.
					tm.Resize(int(cuts[i]%97)+1, int(cuts[i]%31)+1)
					twin.Resize(int(cuts[i]%97)+1, int(cuts[i]%31)+1)
				}
			}
			part := data[:n]
			data = data[n:]
			if w, err := tm.Write(part); w != len(part) || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", len(part), w, err)
			}
			twin.Write(part)
			checkInvariants(t, tm)
			sameAsTwin(t, tm, twin)
		}
		if len(panics) > 0 {
			t.Fatalf("emulator panics recovered: %q", panics)
		}
	})
}

func checkInvariants(t *testing.T, tm *Terminal) {
	t.Helper()
	cols, rows := tm.Size()
	if lines := tm.Lines(); len(lines) != rows {
		t.Fatalf("Lines() has %d rows, size is %dx%d", len(lines), cols, rows)
	}
	if c := tm.Cursor(); c.X < 0 || c.X >= cols || c.Y < 0 || c.Y >= rows {
		t.Fatalf("cursor %+v outside %dx%d", c, cols, rows)
	}
	s := tm.Snapshot()
	if len(s.Cells) != rows {
		t.Fatalf("snapshot has %d rows, want %d", len(s.Cells), rows)
	}
	for y, row := range s.Cells {
		if len(row) != cols {
			t.Fatalf("snapshot row %d has %d cells, want %d", y, len(row), cols)
		}
		for x, c := range row {
			switch c.Width {
			case 2:
				if x+1 >= cols || row[x+1].Width != 0 {
					t.Fatalf("row %d: wide cell at %d without continuation", y, x)
				}
			case 0:
				if x == 0 || row[x-1].Width != 2 {
					t.Fatalf("row %d: continuation at %d without wide cell", y, x)
				}
			}
		}
	}
}

// sameAsTwin checks that tm, which reclaims cluster codes, shows what twin,
// which never does, shows (as long as twin's table has room).
func sameAsTwin(t *testing.T, tm, twin *Terminal) {
	t.Helper()
	twin.mu.Lock()
	full := twin.clusters.inUse() >= int(clusterEnd-clusterBase)
	twin.mu.Unlock()
	if full {
		return
	}
	if a, b := tm.Snapshot(), twin.Snapshot(); !reflect.DeepEqual(a, b) {
		t.Fatalf("reclaiming cluster codes changed the screen:\n got %q\nwant %q", tm.Lines(), twin.Lines())
	}
	if a, b := tm.HistoryCells(0, tm.HistoryLen()), twin.HistoryCells(0, twin.HistoryLen()); !reflect.DeepEqual(a, b) {
		t.Fatalf("reclaiming cluster codes changed the history")
	}
}
