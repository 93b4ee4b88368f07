package toolexec

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/testreq"
	"github.com/melmux/melmux/toolexec/pdf"
)

func TestWebSearch(t *testing.T) {
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/searx/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "bad request "+r.URL.String(), 400)
			return
		}
		if r.URL.Query().Get("q") == "broken" {
			w.Write([]byte("<html>not json"))
			return
		}
		w.Write([]byte(`{"query":"go","results":[
			{"title":"The Go Programming Language","url":"https://go.dev/","content":"Go is an open source   language."},
			{"title":"Go &amp; tools","url":"https://pkg.go.dev/","content":""}]}`))
	}))
	defer searx.Close()
	brave := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != "k3y" {
			http.Error(w, `{"error":"invalid token"}`, 401)
			return
		}
		if r.URL.Query().Get("q") == "" || r.URL.Query().Get("count") != "10" {
			http.Error(w, "bad query", 422)
			return
		}
		w.Write([]byte(`{"web":{"results":[{"title":"Brave <strong>result</strong>","url":"https://example.org/a",
			"description":"A <strong>bold</strong> snippet &quot;quoted&quot;"}]}}`))
	}))
	defer brave.Close()

	w := newWorkspace(t)
	w.fails("web_search", obj{"query": "go"}, "MELMUX_SEARXNG_URL", "BRAVE_API_KEY")
	w.fails("web_search", obj{"query": " "}, "query is empty")

	w.env[SearXNGURLEnv] = searx.URL + "/searx/"
	got := w.ok("web_search", obj{"query": "go"})
	want := "results for \"go\" (SearXNG):\n\n" +
		"1. The Go Programming Language\n   https://go.dev/\n   Go is an open source language.\n\n" +
		"2. Go & tools\n   https://pkg.go.dev/\n"
	if got != want {
		t.Errorf("SearXNG:\n%q\nwant\n%q", got, want)
	}
	w.fails("web_search", obj{"query": "broken"}, "SearXNG at", "not the expected JSON")

	// Brave alone, then as the fallback when SearXNG fails.
	delete(w.env, SearXNGURLEnv)
	w.env[BraveKeyEnv] = "k3y"
	w.env[BraveURLEnv] = brave.URL + "/res/v1/web/search"
	got = w.ok("web_search", obj{"query": "melmux"})
	mustContain(t, got, `(Brave)`, "1. Brave result\n   https://example.org/a\n   A bold snippet \"quoted\"\n")
	w.env[SearXNGURLEnv] = searx.URL + "/searx"
	mustContain(t, w.ok("web_search", obj{"query": "broken"}), "(Brave)")
	w.env[BraveKeyEnv] = "wrong"
	delete(w.env, SearXNGURLEnv)
	w.fails("web_search", obj{"query": "x"}, "Brave Search: HTTP 401", "check the API key")
	w.env[SearXNGURLEnv] = "not a url"
	w.fails("web_search", obj{"query": "x"}, `MELMUX_SEARXNG_URL="not a url" is not an http(s) URL`)
}

func TestWritePlan(t *testing.T) {
	w := newWorkspace(t)
	got := w.ok("write_plan", obj{"title": "Ship the Tool Executor!", "markdown": "1. tests\n2. bench"})
	mustContain(t, got, `saved plan "Ship the Tool Executor!" at .melmux/plans/ship-the-tool-executor.md`)
	if c := w.read(".melmux/plans/ship-the-tool-executor.md"); c != "# Ship the Tool Executor!\n\n1. tests\n2. bench\n" {
		t.Errorf("plan content %q", c)
	}
	// Same title: a revision replaces it.
	mustContain(t, w.ok("write_plan", obj{"title": "Ship the Tool Executor!", "markdown": "# Ship the Tool Executor!\n\nv2\n"}),
		"updated plan", "ship-the-tool-executor.md")
	if c := w.read(".melmux/plans/ship-the-tool-executor.md"); c != "# Ship the Tool Executor!\n\nv2\n" {
		t.Errorf("revised plan %q", c)
	}
	// Another title with the same slug gets its own file.
	mustContain(t, w.ok("write_plan", obj{"title": "ship the tool executor", "markdown": "other"}), "ship-the-tool-executor-2.md")
	mustContain(t, w.ok("write_plan", obj{"title": "Ship  the tool-executor", "markdown": "third"}), "ship-the-tool-executor-3.md")
	mustContain(t, w.ok("write_plan", obj{"title": "!!!", "markdown": "x"}), ".melmux/plans/plan.md")
	w.fails("write_plan", obj{"title": "", "markdown": "x"}, "title is empty")
	w.fails("write_plan", obj{"title": "a", "markdown": " \n"}, "markdown is empty")
	w.fails("write_plan", obj{"title": "a\nb", "markdown": "x"}, "one line")

	for in, want := range map[string]string{
		"Hello, World": "hello-world", "  --x--  ": "x", "Ünïcode Plan 2": "ünïcode-plan-2",
		strings.Repeat("abc ", 30): strings.TrimSuffix(strings.Repeat("abc-", 15), "-"),
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCreatePDFBuiltin(t *testing.T) {
	w := newWorkspace(t)
	w.env[PDFEngineEnv] = "builtin"
	got := w.ok("create_pdf", obj{"content": "# Report\n\nSome *text* and a table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		"output_path": "out/report.pdf", "title": "Quarterly"})
	if !regexp.MustCompile(`^wrote out/report\.pdf \(\d+\.\d KB, 1 page\) with builtin$`).MatchString(got) {
		t.Errorf("result %q", got)
	}
	data, err := os.ReadFile(filepath.Join(w.root, "out", "report.pdf"))
	if err != nil || !strings.HasPrefix(string(data), "%PDF-") {
		t.Fatalf("not a PDF: %v", err)
	}
	t.Run("text", func(t *testing.T) {
		out, err := exec.Command(testreq.Tool(t, "pdftotext"), filepath.Join(w.root, "out", "report.pdf"), "-").Output()
		if err != nil || !strings.Contains(string(out), "Report") {
			t.Errorf("pdftotext: %v %q", err, out)
		}
	})
	w.fails("create_pdf", obj{"content": "x", "output_path": "r.txt"}, `output_path "r.txt" must end in .pdf`)
	w.fails("create_pdf", obj{"content": "", "output_path": "r.pdf"}, "content is empty")
	os.Mkdir(filepath.Join(w.root, "d.pdf"), 0o755)
	w.fails("create_pdf", obj{"content": "x", "output_path": "d.pdf"}, "d.pdf is a directory")
	w.env[PDFEngineEnv] = "latex"
	w.fails("create_pdf", obj{"content": "x", "output_path": "r.pdf"}, "latex", "builtin")
}

func TestCreatePDFPassesEngineAndPath(t *testing.T) {
	w := newWorkspace(t)
	w.env[PDFEngineEnv] = "chromium"
	var gotTitle, gotPath, gotEngine string
	renderPDF = func(_ context.Context, md, title, out string, o pdf.Options) (string, error) {
		gotTitle, gotPath, gotEngine = title, out, o.Engine
		return "chromium", os.WriteFile(out, []byte("%PDF-1.4\n/Type /Page\n/Type /Page\n/Type /Pages\n"), 0o644)
	}
	defer func() { renderPDF = pdf.Render }()
	got := w.ok("create_pdf", obj{"content": "# x", "output_path": "a/b.pdf", "title": " T "})
	if got != "wrote a/b.pdf (46 bytes, 2 pages) with chromium" {
		t.Errorf("result %q", got)
	}
	// The engine writes into a private directory; the PDF is then
	// installed at the output path.
	if gotTitle != "T" || gotEngine != "chromium" || strings.HasPrefix(gotPath, w.root) {
		t.Errorf("render called with %q %q %q", gotTitle, gotPath, gotEngine)
	}
	if data := w.read("a/b.pdf"); !strings.HasPrefix(data, "%PDF-1.4") {
		t.Errorf("a/b.pdf holds %q", data)
	}
	if _, err := os.Stat(filepath.Dir(gotPath)); err == nil {
		t.Errorf("the private render directory %s was left behind", filepath.Dir(gotPath))
	}
}

func TestRememberRecall(t *testing.T) {
	w := newWorkspace(t)
	w.ex.Role = RoleWorker
	mustContain(t, w.ok("recall", ""), "no notes yet for project "+w.root)
	mustContain(t, w.ok("remember", obj{"note": "the build needs tmux"}), "remembered note 1 for project "+w.root)
	w.ok("remember", obj{"note": "  second  "})
	w.fails("remember", obj{"note": "  "}, "note is empty")
	got := w.ok("recall", nil)
	if !regexp.MustCompile(`^2 notes for project .*, oldest first:\n- \[\d{4}-\d\d-\d\d \d\d:\d\d UTC\] the build needs tmux\n- \[.*\] second\n$`).MatchString(got) {
		t.Errorf("recall: %q", got)
	}

	// The project is the git top-level: a workspace in a subdirectory
	// shares the repository's notes; another directory has its own.
	os.Mkdir(filepath.Join(w.root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(w.root, "sub", "dir"), 0o755)
	sub := &Executor{Root: filepath.Join(w.root, "sub", "dir"), Role: RoleWorker, Memory: mustStore(t, w.ex)}
	sub.Run(context.Background(), "remember", `{"note":"from sub"}`)
	mustContain(t, sub.Run(context.Background(), "recall", "").Text, "3 notes for project "+w.root, "from sub")
	other := &Executor{Root: t.TempDir(), Role: RoleWorker, Memory: mustStore(t, w.ex)}
	mustContain(t, other.Run(context.Background(), "recall", "").Text, "no notes yet")

	// The default path follows XDG_DATA_HOME.
	t.Setenv("XDG_DATA_HOME", "/x/data")
	if p, _ := DefaultMemoryPath(); p != "/x/data/melmux/memory.db" {
		t.Errorf("DefaultMemoryPath = %q", p)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if p, _ := DefaultMemoryPath(); p != "/home/u/.local/share/melmux/memory.db" {
		t.Errorf("DefaultMemoryPath = %q", p)
	}
	// An unusable store is an error result, not a panic.
	bad := &Executor{Root: w.root, Role: RoleWorker, MemoryPath: "/proc/melmux/memory.db"}
	r := bad.Run(context.Background(), "recall", "")
	if !r.IsError || !strings.Contains(r.Text, "/proc/melmux/memory.db") {
		t.Errorf("bad store: %+v", r)
	}
}

func mustStore(t *testing.T, ex *Executor) *MemoryStore {
	m, err := ex.memoryStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMemoryStoreFile(t *testing.T) {
	// An odd directory name must not cut the SQLite URI short.
	path := filepath.Join(t.TempDir(), "a?b#c%d", "memory.db")
	ctx := context.Background()
	m, err := OpenMemory(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Remember(ctx, "/p", "n1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at %s: %v", path, err)
	}
	var mode string
	if err := m.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var timeout int
	if err := m.db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&timeout); err != nil || timeout < 1000 {
		t.Errorf("busy_timeout = %d, %v", timeout, err)
	}
	if _, err := m.Remember(ctx, "/p", " \n"); err != ErrEmptyNote {
		t.Errorf("blank note: %v", err)
	}
	notes, err := m.Recall(ctx, "/p")
	if err != nil || len(notes) != 1 || notes[0].Text != "n1" || notes[0].Project != "/p" {
		t.Errorf("Recall = %+v, %v", notes, err)
	}
}

// TestCreatePDFBestEngine runs create_pdf with no engine forced: where
// Chromium is installed (CI installs it) the result must name it and the
// PDF must carry the title and body; elsewhere the built-in floor is used.
func TestCreatePDFBestEngine(t *testing.T) {
	w := newWorkspace(t)
	got := w.ok("create_pdf", obj{"content": "# Findings\n\nThe cache was cold.\n", "output_path": "f.pdf", "title": "Weekly"})
	_, errC := exec.LookPath("chromium")
	_, errCB := exec.LookPath("chromium-browser")
	if errC == nil || errCB == nil {
		if !strings.HasSuffix(got, "with chromium") {
			t.Errorf("Chromium is installed but the result is %q", got)
		}
	} else if !strings.Contains(got, " with ") {
		t.Errorf("result names no engine: %q", got)
	}
	testreq.Tool(t, "pdftotext")
	out, err := exec.Command("pdftotext", filepath.Join(w.root, "f.pdf"), "-").Output()
	if err != nil || !strings.Contains(string(out), "Findings") || !strings.Contains(string(out), "The cache was cold.") {
		t.Errorf("pdftotext: %v %q", err, out)
	}
}
