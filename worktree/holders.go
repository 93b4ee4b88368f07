package worktree

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Process is a process of this user working in a directory: one whose
// current directory is there. A pane's program is one, and so is what
// outlives its pane, such as a daemon an agent started (Codex's app-server
// stays, its cwd the worktree it started in).
type Process struct {
	PID     int
	Session int    // its session id: a pane's processes share its program's
	Command string // its command line, cut to maxCommand bytes
	Cwd     string
}

// maxCommand bounds the command line a Process keeps, for a message.
const maxCommand = 120

func (p Process) String() string { return "process " + strconv.Itoa(p.PID) + " (" + p.Command + ")" }

// Processes lists the processes whose current directory /proc lets this
// one read (its user's), but this one: none where there is no /proc. A
// process that ends meanwhile is left out.
func Processes() []Process {
	ents, _ := os.ReadDir("/proc")
	var out []Process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		cwd, err := os.Readlink(filepath.Join(dir, "cwd"))
		if err != nil {
			continue
		}
		p := Process{PID: pid, Cwd: cwd, Session: procSession(dir)}
		if argv, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
			p.Command = strings.TrimSpace(strings.ReplaceAll(string(argv), "\x00", " "))
		}
		if p.Command == "" { // a kernel thread, or a zombie
			comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
			p.Command = strings.TrimSpace(string(comm))
		}
		if len(p.Command) > maxCommand {
			p.Command = strings.ToValidUTF8(p.Command[:maxCommand], "") + "…"
		}
		out = append(out, p)
	}
	return out
}

// procSession is field 6 of /proc/PID/stat, the session id (0 when
// unreadable).
func procSession(dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold anything.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 4 {
		return 0
	}
	sid, _ := strconv.Atoi(fields[3])
	return sid
}

// Inside is the processes of ps working in dir or below it, by pid. dir's
// symbolic links are resolved, as /proc resolves a process's directory.
func Inside(ps []Process, dir string) []Process {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var in []Process
	for _, p := range ps {
		if p.Cwd == dir || strings.HasPrefix(p.Cwd, dir+string(filepath.Separator)) {
			in = append(in, p)
		}
	}
	sort.Slice(in, func(i, j int) bool { return in[i].PID < in[j].PID })
	return in
}

// Names says who the processes are, for a person: "process 12 (codex
// app-server)", the first few of them, and how many more.
func Names(ps []Process) string {
	const shown = 3
	var b strings.Builder
	for i, p := range ps {
		if i == shown {
			b.WriteString(" and " + strconv.Itoa(len(ps)-shown) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}
