package corpus

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

//go:embed data/*.tty.gz
var data embed.FS

// Stream is one stream of the corpus, played at Cols x Rows.
type Stream struct {
	Name       string // NAME_COLSxROWS, as the file is named
	Cols, Rows int
	Recorded   bool   // false for a generated shape
	About      string // what it is, for reports
	load       func() ([]byte, error)
}

// Bytes returns the stream as the terminal receives it.
func (s Stream) Bytes() ([]byte, error) { return s.load() }

var fileName = regexp.MustCompile(`^([a-z0-9-]+)_(\d+)x(\d+)\.tty\.gz$`)

// about says what each recording is; README.md says how it was made.
var about = map[string]string{
	"vim":        "vim: a 2,000-line Go file, page and half-page both ways, line scrolls at the edges, searches, a split",
	"less":       "less: the same file, page down and up, line scrolls, searches, end and start",
	"top":        "top -d 0.2 for 15 s (10 s at 80x24)",
	"gitlog":     "git log -p through less (LESS=FRX as git sets it): page down 25 times, back up 3",
	"man":        "man tmux: page down, a search, next matches",
	"gotest":     "go test -v -count=1 of two packages of this module",
	"gobuild":    "go build -x with an empty build cache: every compile and link command line",
	"apt":        "apt-get install --reinstall of a local .deb with Dpkg::Progress-Fancy=1 (a scroll region over a progress bar), then its removal, three times",
	"pybar":      "a Python script's progress bars (\\r redraws, tqdm's look) between log lines",
	"nodespin":   "a Node script's spinner and multi-line status (erase line, cursor up), npm's look",
	"watch":      "watch -n 0.1 of the time, the load average and /proc/meminfo for 8 s",
	"clear":      "a shell loop: clear, then a few lines, 150 times",
	"claude":     "Claude Code 2.1: start, a prompt, a shell command asked for and approved, a long markdown answer, /exit",
	"codex":      "Codex 0.169: start, a prompt, a shell command asked for and approved, a long markdown answer, C-c twice",
	"bash-typed": "an interactive bash: commands typed a key at a time, their output",
}

// All returns the recorded streams, then the generated shapes, each sorted
// by name.
func All() ([]Stream, error) {
	ents, err := data.ReadDir("data")
	if err != nil {
		return nil, err
	}
	var out []Stream
	for _, e := range ents {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("corpus: %s: want NAME_COLSxROWS.tty.gz", e.Name())
		}
		cols, _ := strconv.Atoi(m[2])
		rows, _ := strconv.Atoi(m[3])
		file := path.Join("data", e.Name())
		out = append(out, Stream{
			Name: strings.TrimSuffix(e.Name(), ".tty.gz"), Cols: cols, Rows: rows, Recorded: true, About: about[m[1]],
			load: func() ([]byte, error) { return gunzip(file) },
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for _, sh := range shapes {
		out = append(out, Stream{Name: sh.name + "_200x50", Cols: 200, Rows: 50, About: sh.about,
			load: func() ([]byte, error) { return sh.gen(), nil }})
	}
	return out, nil
}

func gunzip(file string) ([]byte, error) {
	raw, err := data.ReadFile(file)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", file, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", file, err)
	}
	return b, nil
}
