package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Slack is how much earlier than since a prompt (or a session file's last
// write) may be stamped and still count: the CLI's clock reading and the
// caller's are taken at different moments.
const Slack = 2 * time.Second

// maxFiles bounds how many candidate session files one Find reads.
const maxFiles = 8

var (
	// ErrUnknownKind: the kind is none of "claude", "codex", "gemini".
	ErrUnknownKind = errors.New("unknown agent kind")
	// ErrNoTranscript: no session file of the agent was found.
	ErrNoTranscript = errors.New("no transcript")
	// ErrNoTurn: a session file, but no turn prompted at or after since.
	ErrNoTurn = errors.New("no such turn")
)

// Proc is where an agent process keeps its sessions: its environment
// (KEY=VALUE) and working directory. PID and Open are optional: with them
// Find picks the very session the process writes (Claude Code's
// sessions/PID.json, the rollout file Codex holds open) rather than the
// newest one of its project.
type Proc struct {
	Env  []string
	Cwd  string
	PID  int      // 0 when unknown
	Open []string // session files (*.json, *.jsonl) the process or its children hold open
}

// ReadProc reads /proc/PID/environ and /proc/PID/cwd, and the session files
// the process and its children hold open.
func ReadProc(pid int) (Proc, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	env, err := os.ReadFile(dir + "/environ")
	if err != nil {
		return Proc{}, fmt.Errorf("transcript: process %d: %w", pid, err)
	}
	cwd, err := os.Readlink(dir + "/cwd")
	if err != nil {
		return Proc{}, fmt.Errorf("transcript: process %d: %w", pid, err)
	}
	p := Proc{Cwd: cwd, PID: pid}
	for _, kv := range strings.Split(string(env), "\x00") {
		if kv != "" {
			p.Env = append(p.Env, kv)
		}
	}
	pids := append([]int{pid}, children(pid)...)
	for _, q := range pids {
		fds, _ := os.ReadDir("/proc/" + strconv.Itoa(q) + "/fd")
		for _, fd := range fds {
			target, err := os.Readlink("/proc/" + strconv.Itoa(q) + "/fd/" + fd.Name())
			if err != nil || !strings.HasPrefix(target, "/") {
				continue
			}
			if (strings.HasSuffix(target, ".jsonl") || strings.HasSuffix(target, ".json")) && !slices.Contains(p.Open, target) {
				p.Open = append(p.Open, target)
			}
		}
	}
	return p, nil
}

// children lists the direct children of pid (Codex installed by npm is a
// node launcher whose child is the real program).
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(raw)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// Getenv returns the value of key in p's environment, "" when unset.
func (p Proc) Getenv(key string) string {
	for i := len(p.Env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(p.Env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// cwds are the spellings of p's working directory a CLI may have keyed its
// project by: the directory as the kernel has it (symlinks resolved) and
// $PWD when it names the same directory.
func (p Proc) cwds() []string {
	var out []string
	add := func(d string) {
		if d != "" && filepath.IsAbs(d) && !slices.Contains(out, filepath.Clean(d)) {
			out = append(out, filepath.Clean(d))
		}
	}
	add(p.Cwd)
	if real, err := filepath.EvalSymlinks(p.Cwd); err == nil {
		add(real)
	}
	if pwd := p.Getenv("PWD"); pwd != "" && p.Cwd != "" && sameDir(pwd, p.Cwd) {
		add(pwd)
	}
	return out
}

func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// Reply is a turn's final reply as the transcript has it.
type Reply struct {
	Text string // the final assistant message of the turn, whole (text blocks only, joined as the CLI shows them)
	File string // the session file it came from
	Done bool   // the transcript shows the turn finished (not merely an intermediate message before a tool call)
}

// turn is one user prompt and what the agent answered until the next.
type turn struct {
	At     time.Time
	Prompt string
	Text   string
	Done   bool
}

// Find returns the reply of the turn of agent kind ("claude", "codex" or
// "gemini") whose user prompt was submitted at or after since (less Slack):
// of several such turns the first, or when prompt is not "" the first whose
// prompt contains it (white space compared loosely), else the first. Errors
// wrap ErrUnknownKind, ErrNoTranscript (no session file: the message says
// where Find looked) or ErrNoTurn (a file, but no such turn yet).
//
// A turn with no answer yet is no error: its Reply has Text "" and Done
// false.
func Find(kind string, p Proc, since time.Time, prompt string) (Reply, error) {
	var (
		files []string
		parse func(string) ([]turn, error)
		err   error
	)
	switch kind {
	case "claude":
		files, err = claudeFiles(p, since)
		parse = parseClaude
	case "codex":
		files, err = codexFiles(p, since)
		parse = parseCodex
	case "gemini":
		files, err = geminiFiles(p, since)
		parse = parseGemini
	default:
		return Reply{}, fmt.Errorf("transcript: %w %q (want claude, codex or gemini)", ErrUnknownKind, kind)
	}
	if err != nil {
		return Reply{}, err
	}
	from := since.Add(-Slack)
	want := squash(prompt)
	var first *Reply
	var looked []string
	for _, f := range files {
		turns, err := parse(f)
		if err != nil {
			looked = append(looked, fmt.Sprintf("%s (%v)", f, err))
			continue
		}
		var earliest, match *turn // the first turn since; the first whose prompt has want
		for i := range turns {
			if turns[i].At.Before(from) {
				continue
			}
			if earliest == nil {
				earliest = &turns[i]
			}
			if want != "" && strings.Contains(squash(turns[i].Prompt), want) {
				match = &turns[i]
				break
			}
		}
		if match != nil {
			return Reply{Text: match.Text, File: f, Done: match.Done}, nil
		}
		if earliest == nil {
			looked = append(looked, f)
			continue
		}
		if want == "" {
			return Reply{Text: earliest.Text, File: f, Done: earliest.Done}, nil
		}
		if first == nil {
			first = &Reply{Text: earliest.Text, File: f, Done: earliest.Done}
		}
	}
	if first != nil {
		return *first, nil
	}
	return Reply{}, fmt.Errorf("transcript: %w: no %s turn prompted at or after %s in %s", ErrNoTurn, kind,
		from.Format(time.RFC3339Nano), strings.Join(looked, ", "))
}

// squash trims s and makes every run of white space one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// recent returns the files among paths (deduplicated) last written at or
// after since less Slack, newest first, the ones in first kept in front; and
// the newest of those last written before, "" when none.
func recent(since time.Time, first []string, paths []string) (fresh []string, stale string) {
	type file struct {
		path string
		mod  time.Time
		pref bool
	}
	from := since.Add(-Slack)
	var fs []file
	var staleMod time.Time
	seen := map[string]bool{}
	for i, group := range [][]string{first, paths} {
		for _, p := range group {
			if seen[p] {
				continue
			}
			seen[p] = true
			st, err := os.Stat(p)
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
			if st.ModTime().Before(from) {
				if stale == "" || st.ModTime().After(staleMod) {
					stale, staleMod = p, st.ModTime()
				}
				continue
			}
			fs = append(fs, file{p, st.ModTime(), i == 0})
		}
	}
	slices.SortStableFunc(fs, func(a, b file) int {
		if a.pref != b.pref {
			if a.pref {
				return -1
			}
			return 1
		}
		return b.mod.Compare(a.mod)
	})
	for _, f := range fs {
		fresh = append(fresh, f.path)
		if len(fresh) == maxFiles {
			break
		}
	}
	return fresh, stale
}

// notYet is ErrNoTurn for a session file not written since.
func notYet(name string, since time.Time, file string) error {
	var when string
	if st, err := os.Stat(file); err == nil {
		when = " (last written " + st.ModTime().Format(time.RFC3339Nano) + ")"
	}
	return fmt.Errorf("transcript: %w: no %s turn prompted at or after %s: its newest session file %s%s was not written since",
		ErrNoTurn, name, since.Add(-Slack).Format(time.RFC3339Nano), file, when)
}

// noTranscript is ErrNoTranscript naming where Find looked.
func noTranscript(name string, since time.Time, where []string) error {
	return fmt.Errorf("transcript: %w: no %s session file written since %s in %s", ErrNoTranscript, name,
		since.Add(-Slack).Format(time.RFC3339Nano), strings.Join(where, ", "))
}

// eachLine calls fn with every complete line of the file at path (a line
// still being written, with no newline yet, is left out).
func eachLine(path string, fn func(line []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			fn(line)
		}
	}
}

// stamp parses an RFC 3339 time stamp, the zero time when it is not one.
func stamp(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
