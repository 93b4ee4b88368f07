// Command record makes the recordings of bench/corpus: it runs each recipe's
// program in a PTY of the recipe's size, types the recipe's keys with its
// pauses, and writes every byte the program sent to its terminal to
// data/NAME_COLSxROWS.tty.gz.
//
// The recorder is the program's terminal: it follows the screen with
// pane/term (so a step can wait for text to show), and answers the device
// queries pane/term answers (DA1, DA2, DSR, cursor position), as any
// terminal would: a program that asks may wait for the answer before it
// draws. Programs run with TERM=xterm-256color, LANG=C.UTF-8, no
// TMUX or MELMUX variables, and a private HOME (no one's vimrc or
// .gitconfig).
//
// Usage, from the module's root: go run ./bench/corpus/record [-only NAME,...] [-out bench/corpus/data]
// The apt recipe installs and removes the package "hello" from a .deb it
// downloads first (apt-get download), so it needs root and the network;
// the claude and codex recipes need the CLIs internal/agentcli finds.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/melmux/melmux/internal/agentcli"
	"github.com/melmux/melmux/pane/term"
)

// step is one thing the person does: type keys, then wait for text on the
// screen, for the output to go quiet, or for a time.
type step struct {
	keys  string
	wait  string        // text the screen must show before the next step
	quiet time.Duration // no output for this long
	pause time.Duration
	act   func(r *run) // before the keys
}

func keys(k string, pause time.Duration) step { return step{keys: k, pause: pause} }
func waitFor(text string) step                { return step{wait: text} }
func quiet(d time.Duration) step              { return step{quiet: d} }
func pause(d time.Duration) step              { return step{pause: d} }

// times repeats keys n times with pause after each.
func times(n int, k string, p time.Duration) []step {
	var s []step
	for range n {
		s = append(s, keys(k, p))
	}
	return s
}

type recipe struct {
	name       string
	cols, rows int
	argv       []string
	// setup prepares the recipe's files in the run's directory (the
	// program's private HOME and, unless setup moves it, its working
	// directory) and may add to its environment, change its command line
	// and leave work for after the program ends (r.after).
	setup func(r *run) error
	steps []step
}

// run is one recording in progress.
type run struct {
	repo, dir string
	env       []string
	argv      []string
	after     []func()
	model     *agentcli.Model
}

func concat(parts ...any) []step {
	var out []step
	for _, p := range parts {
		switch v := p.(type) {
		case step:
			out = append(out, v)
		case []step:
			out = append(out, v...)
		}
	}
	return out
}

const ms = time.Millisecond

// bigFile is the file vim and less open: the largest Go source file of
// the module that is not a test, so the recording does not depend on
// anything outside the repository.
func bigFile(repo string) (string, error) {
	var best string
	var size int64
	err := filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() > size {
			best, size = p, fi.Size()
		}
		return nil
	})
	return best, err
}

// copyBig copies the big file into the run's directory under a stable
// name, so the recording holds no path of the machine it was made on.
func copyBig(r *run) (string, error) {
	src, err := bigFile(r.repo)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(r.dir, "server.go")
	return dst, os.WriteFile(dst, b, 0o644)
}

func vimSteps() []step {
	return concat(
		quiet(800*ms),
		times(8, "\x06", 150*ms), // C-f
		times(4, "\x02", 150*ms), // C-b
		times(4, "\x04", 120*ms), // C-d
		times(2, "\x15", 120*ms), // C-u
		keys("L", 100*ms), times(40, "j", 40*ms),
		keys("H", 100*ms), times(40, "k", 40*ms),
		keys("/func (\r", 300*ms), times(5, "n", 200*ms), keys("N", 200*ms),
		keys(":split\r", 300*ms), times(3, "\x06", 150*ms),
		keys("\x17w", 200*ms), times(3, "\x04", 150*ms), keys("G", 200*ms), keys("gg", 200*ms),
		keys(":q\r", 200*ms), keys(":q!\r", 0), quiet(300*ms),
	)
}

func lessSteps() []step {
	return concat(
		quiet(500*ms),
		times(10, " ", 120*ms), times(5, "b", 120*ms),
		times(30, "j", 40*ms), times(30, "k", 40*ms),
		keys("/Handler\r", 300*ms), times(5, "n", 200*ms),
		keys("G", 300*ms), keys("g", 300*ms), keys("q", 0), quiet(300*ms),
	)
}

func recipes() []recipe {
	vim := func(cols, rows int) recipe {
		return recipe{name: "vim", cols: cols, rows: rows, argv: []string{"vim", "-i", "NONE", "-n", "server.go"},
			setup: func(r *run) error { _, err := copyBig(r); return err }, steps: vimSteps()}
	}
	less := func(cols, rows int) recipe {
		return recipe{name: "less", cols: cols, rows: rows, argv: []string{"less", "server.go"},
			setup: func(r *run) error { _, err := copyBig(r); return err }, steps: lessSteps()}
	}
	top := func(cols, rows int, secs int) recipe {
		return recipe{name: "top", cols: cols, rows: rows, argv: []string{"top", "-d", "0.2"},
			steps: []step{pause(time.Duration(secs) * time.Second), keys("q", 0), quiet(300 * ms)}}
	}
	return []recipe{
		vim(200, 50), vim(80, 24),
		less(200, 50), less(80, 24),
		top(200, 50, 15), top(80, 24, 10),
		{name: "gitlog", cols: 200, rows: 50, argv: []string{"git", "log", "-p", "-n", "300"},
			setup: func(r *run) error {
				r.env = append(r.env, "GIT_PAGER=less")
				r.argv = append(r.argv[:1], append([]string{"-C", r.repo}, r.argv[1:]...)...)
				return nil
			},
			steps: concat(quiet(800*ms), times(25, " ", 100*ms), times(3, "b", 150*ms), keys("q", 0), quiet(300*ms))},
		{name: "man", cols: 80, rows: 24, argv: []string{"man", "tmux"},
			steps: concat(quiet(1500*ms), times(12, " ", 120*ms), keys("/copy-mode\r", 300*ms), times(6, "n", 200*ms), times(3, "b", 150*ms), keys("q", 0), quiet(300*ms))},
		{name: "gotest", cols: 200, rows: 50, argv: []string{"go", "test", "-v", "-count=1", "./layout", "./pane/keys"},
			setup: func(r *run) error { r.useRepo(); return nil }},
		{name: "gobuild", cols: 200, rows: 50, argv: []string{"go", "build", "-x", "-o", "/dev/null", "./gen"}, setup: goModule},
		{name: "apt", cols: 200, rows: 50, setup: aptSetup,
			argv: []string{"sh", "-c", "o='-o Dpkg::Progress-Fancy=1 -o Dir::Etc::SourceParts=./parts'; for i in 1 2 3; do apt-get install -y --reinstall $o ./hello.deb && apt-get remove -y $o hello; done"}},
		{name: "pybar", cols: 200, rows: 50, argv: []string{"python3", "bar.py"}, setup: writeScript("bar.py", pyBar)},
		{name: "nodespin", cols: 200, rows: 50, argv: []string{"node", "spin.js"}, setup: writeScript("spin.js", nodeSpin)},
		{name: "watch", cols: 200, rows: 50, argv: []string{"watch", "-n", "0.1", "date +%T.%N; cat /proc/loadavg; head -20 /proc/meminfo"},
			steps: []step{pause(8 * time.Second), keys("\x03", 0), quiet(300 * ms)}},
		{name: "clear", cols: 200, rows: 50, argv: []string{"sh", "-c", `for i in $(seq 150); do clear; echo "run $i"; date; ls -l; sleep 0.03; done`},
			setup: func(r *run) error { r.useRepo(); return nil }},
		{name: "bash-typed", cols: 80, rows: 24, argv: []string{"bash", "--norc", "-i"},
			setup: func(r *run) error { r.useRepo(); r.env = append(r.env, "PS1=$ "); return nil },
			steps: concat(quiet(300*ms), typed("ls -la"), typed("git --no-pager log --oneline -n 30"), typed("seq 1 40"),
				typed("cat go.mod"), typed("echo done"), typed("exit"))},
		agentRecipe("claude", 200, 50), agentRecipe("claude", 80, 24), agentRecipe("codex", 200, 50), agentRecipe("codex", 80, 24),
	}
}

// typed types a command a key at a time, as a person does, then Enter.
func typed(cmd string) []step {
	var s []step
	for _, c := range cmd {
		s = append(s, keys(string(c), 60*ms))
	}
	return append(s, keys("\r", 0), quiet(400*ms))
}

func (r *run) useRepo() { r.dir = r.repo }

// goModule copies bench/streams and its command into a module of their
// own in the run's directory, with an empty build cache, so that go build
// compiles the standard library packages it needs too, and the command
// lines it prints name no directory of the machine's but the temporary one.
func goModule(r *run) error {
	m := filepath.Join(r.dir, "m")
	for _, d := range []string{"streams", "gen"} {
		src := filepath.Join(r.repo, "bench", "streams")
		if d == "gen" {
			src = filepath.Join(src, "gen")
		}
		files, _ := filepath.Glob(filepath.Join(src, "*.go"))
		if err := os.MkdirAll(filepath.Join(m, d), 0o755); err != nil {
			return err
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			b = bytes.ReplaceAll(b, []byte("github.com/melmux/melmux/bench/streams"), []byte("example.com/m/streams"))
			if err := os.WriteFile(filepath.Join(m, d, filepath.Base(f)), b, 0o644); err != nil {
				return err
			}
		}
	}
	if err := os.WriteFile(filepath.Join(m, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		return err
	}
	r.dir = m
	r.env = append(r.env, "GOCACHE="+filepath.Join(r.dir, "gocache"), "GOFLAGS=-trimpath", "GOTOOLCHAIN=local")
	return nil
}

func writeScript(name, text string) func(r *run) error {
	return func(r *run) error { return os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o644) }
}

// pyBar draws progress bars the way tqdm does: the whole bar rewritten
// after a carriage return on every update, a log line printed between bars.
const pyBar = `import sys, time

def bar(label, total, width=40):
    start = time.time()
    for i in range(total + 1):
        frac = i / total
        full = int(frac * width)
        part = " ▏▎▍▌▋▊▉"[int((frac * width - full) * 8)] if full < width else ""
        el = time.time() - start
        rate = i / el if el > 0 else 0
        sys.stdout.write("\r%s: %3d%%|%s%s%s| %d/%d [%02d:%02d, %.2fit/s]" % (
            label, frac * 100, "█" * full, part, " " * (width - full - len(part)), i, total, el // 60, el % 60, rate))
        sys.stdout.flush()
        time.sleep(0.004)
    sys.stdout.write("\n")

for n, label in enumerate(["download", "extract", "compile", "test", "upload"]):
    print("step %d: %s" % (n + 1, label))
    bar(label, 300 + 100 * n)
print("all done")
`

// nodeSpin draws a spinner and a status block the way npm and ora do:
// erase the block's lines upwards, write it again.
const nodeSpin = `const frames = ["⠋","⠙","⠹","⠸","⠼","⠴","⠦","⠧","⠇","⠏"];
const pkgs = ["react","lodash","typescript","esbuild","vite","eslint","prettier","jest","webpack","rollup"];
let i = 0, lines = 0, done = 0;
function draw() {
  let out = "";
  for (let k = 0; k < lines; k++) out += "\x1b[2K\x1b[1A";
  out += "\x1b[2K\r";
  const now = pkgs.slice(done % pkgs.length, done % pkgs.length + 3);
  out += "\x1b[36m" + frames[i % frames.length] + "\x1b[39m Installing packages (" + done + "/200)\n";
  for (const p of now) out += "  \x1b[2m" + p + "@" + (i % 9) + "." + (i % 17) + ".0\x1b[22m fetching\n";
  out += "  [" + "=".repeat(Math.floor(done / 5)) + " ".repeat(40 - Math.floor(done / 5)) + "]";
  lines = now.length + 1;
  process.stdout.write(out);
}
const t = setInterval(() => {
  i++;
  if (i % 3 === 0) { done++; if (done % 10 === 0) { process.stdout.write("\x1b[2K\r"); for (let k = 0; k < lines; k++) process.stdout.write("\x1b[1A\x1b[2K"); process.stdout.write("\x1b[32m✔\x1b[39m added batch " + done / 10 + "\n"); lines = 0; } }
  draw();
  if (done >= 200) { clearInterval(t); process.stdout.write("\n\x1b[32m✔\x1b[39m installed 200 packages\n"); }
}, 8);
`

func aptSetup(r *run) error {
	cmd := exec.Command("apt-get", "download", "hello")
	cmd.Dir = r.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get download hello: %v\n%s", err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(r.dir, "hello_*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download hello left %v", debs)
	}
	r.env = append(r.env, "DEBIAN_FRONTEND=readline")
	// No sources: apt takes the package from the file and says nothing
	// about the machine's own source lists.
	if err := os.Mkdir(filepath.Join(r.dir, "parts"), 0o755); err != nil {
		return err
	}
	return os.Rename(debs[0], filepath.Join(r.dir, "hello.deb"))
}

// agentRecipe is a turn of Claude Code or Codex against the scripted model
// of internal/agentcli: a prompt, a shell command the model asks for (the
// agent asks the person; the recipe approves), the model's long answer.
func agentRecipe(name string, cols, rows int) recipe {
	rc := recipe{name: name, cols: cols, rows: rows}
	answer := strings.Join([]string{
		"## What the build does", "",
		"The build runs in **three stages**, each of which can fail on its own:", "",
		"1. `go vet` over every package, which catches the printf mistakes;",
		"2. the unit tests with the race detector on, under `-count=1`;",
		"3. the end-to-end scripts, which start the real binary on a private socket.", "",
		"```go", "func main() {", "\tif err := run(os.Args[1:]); err != nil {", "\t\tfmt.Fprintln(os.Stderr, err)", "\t\tos.Exit(1)", "\t}", "}", "```", "",
		"| stage | time | fails on |", "|---|---|---|", "| vet | 4 s | printf verbs |", "| unit | 40 s | races |", "| e2e | 90 s | timeouts |", "",
		strings.Repeat("The third stage is the slow one because every script starts a server, waits for its socket and tears it down again. ", 6),
	}, "\n")
	rc.setup = func(r *run) error {
		m, err := agentcli.NewModel()
		if err != nil {
			return err
		}
		r.after = append(r.after, func() { m.Close() })
		r.model = m
		m.AddRule(agentcli.Rule{Match: "explain the build", Command: "touch build.log", Text: answer})
		home := filepath.Join(r.dir, "home")
		proj := filepath.Join(r.dir, "project")
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return err
		}
		for i := range 5 {
			os.WriteFile(filepath.Join(proj, fmt.Sprintf("file%d.go", i)), []byte("package p\n"), 0o644)
		}
		dir := agentcli.Dir()
		if name == "claude" {
			bin, err := agentcli.ClaudeCode.Find(dir)
			if err != nil {
				return err
			}
			if err := agentcli.WriteClaudeHome(home, agentcli.TestKey, proj); err != nil {
				return err
			}
			r.argv = append([]string{bin}, agentcli.ClaudeArgs...)
			r.env = append(r.env, agentcli.ClaudeEnv(m.URL(), agentcli.TestKey)...)
			r.env = append(r.env, "HOME="+home)
		} else {
			bin, err := agentcli.Codex.Find(dir)
			if err != nil {
				return err
			}
			ch := filepath.Join(home, ".codex")
			if err := agentcli.WriteCodexHome(ch, m.URL(), proj); err != nil {
				return err
			}
			r.argv = []string{bin}
			r.env = append(r.env, agentcli.CodexEnv(ch)...)
			r.env = append(r.env, "HOME="+home)
		}
		r.dir = proj
		return nil
	}
	// The model holds each answer for a few seconds, so the recording
	// has the agent's working screen (spinner, timer) as a slow model
	// gives it.
	hold := step{act: func(r *run) { r.model.Hold() }}
	release := step{act: func(r *run) { r.model.Release() }}
	if name == "claude" {
		rc.steps = concat(waitFor("❯"), quiet(1500*ms), typed("explain the build")[:17], hold, keys("\r", 0), pause(4*time.Second), release,
			waitFor("Do you want to proceed?"), quiet(800*ms), hold, keys("1", 0), pause(4*time.Second), release,
			waitFor("timeouts"), quiet(1500*ms), typed("/exit")[:5], pause(300*ms), keys("\r", 0), quiet(1000*ms))
	} else {
		rc.steps = concat(waitFor("Ask Codex"), quiet(1500*ms), typed("explain the build")[:17], hold, keys("\r", 0), pause(4*time.Second), release,
			waitFor("Would you like to run"), quiet(800*ms), hold, keys("y", 0), pause(4*time.Second), release,
			waitFor("timeouts"), quiet(1500*ms), keys("\x03", 300*ms), keys("\x03", 0), quiet(1000*ms))
	}
	return rc
}

func main() {
	only := flag.String("only", "", "record only these recipes (comma-separated names, or NAME_COLSxROWS)")
	out := flag.String("out", filepath.Join("bench", "corpus", "data"), "directory for the recordings")
	flag.Parse()
	repo, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "go.mod")); err != nil {
		fail(fmt.Errorf("run from the module's root: %w", err))
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	for _, rc := range recipes() {
		id := fmt.Sprintf("%s_%dx%d", rc.name, rc.cols, rc.rows)
		if len(want) > 0 && !want[rc.name] && !want[id] {
			continue
		}
		start := time.Now()
		b, err := record(repo, rc)
		if err != nil {
			fail(fmt.Errorf("%s: %w", id, err))
		}
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		if err := os.WriteFile(filepath.Join(*out, id+".tty.gz"), z.Bytes(), 0o644); err != nil {
			fail(err)
		}
		fmt.Printf("%s: %d bytes (%d gzipped) in %.1f s\n", id, len(b), z.Len(), time.Since(start).Seconds())
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "record:", err)
	os.Exit(1)
}

func environ(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "LC_"), strings.HasPrefix(k, "TMUX"), strings.HasPrefix(k, "MELMUX"),
			k == "TERM", k == "COLORTERM", k == "LANG", k == "LANGUAGE", k == "HOME", k == "LESS", k == "PAGER",
			k == "COLUMNS", k == "LINES", k == "CI", k == "GITHUB_ACTIONS", k == "MANPAGER", k == "GIT_PAGER":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TERM=xterm-256color", "LANG=C.UTF-8", "HOME="+home)
}

func record(repo string, rc recipe) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "corpus-rec.")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r := &run{repo: repo, dir: tmp, env: environ(tmp), argv: rc.argv}
	defer func() {
		for _, f := range r.after {
			f()
		}
	}()
	if rc.setup != nil {
		if err := rc.setup(r); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(rc.cols), Rows: uint16(rc.rows)})
	if err != nil {
		return nil, err
	}
	defer ptmx.Close()

	var (
		mu      sync.Mutex
		rec     bytes.Buffer
		last    = time.Now()
		changed = make(chan struct{}, 1)
	)
	replies := make(chan []byte, 64)
	go func() {
		for b := range replies {
			ptmx.Write(b)
		}
	}()
	tm := term.New(rc.cols, rc.rows, term.Options{Reply: func(b []byte) { replies <- append([]byte(nil), b...) }})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 64*1024)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				func() {
					mu.Lock()
					defer mu.Unlock()
					rec.Write(buf[:n])
					last = time.Now()
				}()
				tm.Write(buf[:n])
				select {
				case changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	screenHas := func(s string) bool { return strings.Contains(strings.Join(tm.Lines(), "\n"), s) }
	for i, st := range rc.steps {
		if st.act != nil {
			st.act(r)
		}
		if st.keys != "" {
			if _, err := io.WriteString(ptmx, st.keys); err != nil {
				return nil, fmt.Errorf("step %d: typing %q: %w", i, st.keys, err)
			}
		}
		deadline := time.Now().Add(90 * time.Second)
		if st.wait != "" {
			for !screenHas(st.wait) {
				if time.Now().After(deadline) {
					return nil, fmt.Errorf("step %d: %q never showed; screen:\n%s", i, st.wait, strings.Join(tm.Lines(), "\n"))
				}
				select {
				case <-changed:
				case <-time.After(100 * ms):
				}
			}
		}
		if st.quiet > 0 {
			for {
				idle := func() time.Duration {
					mu.Lock()
					defer mu.Unlock()
					return time.Since(last)
				}()
				if idle >= st.quiet || time.Now().After(deadline) {
					break
				}
				time.Sleep(st.quiet - idle)
			}
		}
		time.Sleep(st.pause)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Process.Kill()
		return nil, errors.New("the program did not end after its last step")
	}
	// What the program wrote just before it ended is still in the PTY.
	select {
	case <-readDone:
	case <-time.After(2 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]byte(nil), rec.Bytes()...), nil
}
