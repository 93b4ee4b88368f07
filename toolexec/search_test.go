package toolexec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	w := newWorkspace(t)
	w.write(
		".gitignore", "build/\n*.log\n/rootonly.txt\n!keep.log\n",
		"main.go", "package main\n\nfunc main() {\n\tprintln(\"needle\")\n}\n",
		"lib/a.go", "// needle in lib\nvar x = 1\nneedle needle\n",
		"lib/.gitignore", "gen_*.go\n!gen_keep.go\n",
		"lib/gen_skip.go", "needle generated\n",
		"lib/gen_keep.go", "needle kept\n",
		"lib/deeper/rootonly.txt", "needle not root\n",
		"rootonly.txt", "needle root\n",
		"build/out.go", "needle built\n",
		"x.log", "needle log\n",
		"keep.log", "needle kept log\n",
		".git/config", "needle in git\n",
		"crlf.txt", "needle crlf\r\nother\r\n",
		"noeol.txt", "first\nneedle at end",
		".main.go.melmux-tmp-123", "needle from a killed write\n",
	)
	os.WriteFile(filepath.Join(w.root, "blob.bin"), []byte("needle\x00binary"), 0o644)

	got := w.ok("grep", obj{"pattern": "needle"})
	want := "crlf.txt:1:needle crlf\n" +
		"keep.log:1:needle kept log\n" +
		"lib/a.go:1:// needle in lib\n" +
		"lib/a.go:3:needle needle\n" +
		"lib/deeper/rootonly.txt:1:needle not root\n" +
		"lib/gen_keep.go:1:needle kept\n" +
		"main.go:4:\tprintln(\"needle\")\n" +
		"noeol.txt:2:needle at end\n" +
		"[8 matching lines in 7 files; skipped 1 binary file]\n"
	if got != want {
		t.Errorf("grep needle:\n%s\nwant:\n%s", got, want)
	}

	// Each matching strategy: pure literal, required literal, no literal,
	// anchors, case folding, and a class that could span lines.
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{`func \w+\(`, []string{"main.go:3:func main() {"}},
		{`^var`, []string{"lib/a.go:2:var x = 1"}},
		{`end$`, []string{"noeol.txt:2:needle at end"}},
		{`(?i)NEEDLE CRLF`, []string{"crlf.txt:1:needle crlf"}},
		{`[0-9]`, []string{"lib/a.go:2:var x = 1"}},
		{`needle[^z]*other`, nil},
		{`x = [0-9]+`, []string{"lib/a.go:2:var x = 1"}},
		{`(needle ){1}needle`, []string{"lib/a.go:3:needle needle"}},
		{`a|^first`, []string{"noeol.txt:1:first"}},
	} {
		got := w.ok("grep", obj{"pattern": tc.pattern})
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
			if !strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "no matches") {
				lines = append(lines, l)
			}
		}
		for _, wl := range tc.want {
			if !contains(lines, wl) {
				t.Errorf("grep %q: missing %q in:\n%s", tc.pattern, wl, got)
			}
		}
		if tc.want == nil && len(lines) > 0 {
			t.Errorf("grep %q: matched across lines:\n%s", tc.pattern, got)
		}
	}
	// Every line the tool reports must really match, and every matching
	// line of a searched file must be reported (checked against a plain
	// line-by-line regexp).
	for _, pattern := range []string{`a|^first`, `\bx\b`, `e\s`, `(?m)^n`} {
		re := regexp.MustCompile(pattern)
		got := w.ok("grep", obj{"pattern": pattern})
		for _, f := range []string{"main.go", "lib/a.go", "noeol.txt", "crlf.txt"} {
			for i, line := range strings.Split(strings.TrimSuffix(w.read(f), "\n"), "\n") {
				line = strings.TrimSuffix(line, "\r")
				entry := fmt.Sprintf("%s:%d:%s\n", f, i+1, line)
				if re.MatchString(line) != strings.Contains(got, entry) {
					t.Errorf("grep %q: line %s:%d %q reported=%v", pattern, f, i+1, line, strings.Contains(got, entry))
				}
			}
		}
	}

	mustContain(t, w.ok("grep", obj{"pattern": "zzz-nothing"}), `no matches for "zzz-nothing"`, "files searched")
	w.fails("grep", obj{"pattern": "a("}, "invalid RE2 pattern", "missing closing )")
	w.fails("grep", obj{"pattern": `x**`}, "invalid RE2 pattern", "invalid nested repetition operator")
	w.fails("grep", obj{"pattern": ""}, "pattern is empty")
}

func TestGrepCapsAndLongLines(t *testing.T) {
	w := newWorkspace(t)
	for i := 0; i < 40; i++ {
		var b strings.Builder
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "hit %d %d\n", i, j)
		}
		w.write(fmt.Sprintf("d%02d/f.txt", i), b.String())
	}
	w.write("zz/long.txt", "hit "+strings.Repeat("x", 1000)+"\n")
	got := w.ok("grep", obj{"pattern": "hit"})
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != grepMaxMatches+1 {
		t.Fatalf("want %d lines and a note, got %d", grepMaxMatches, len(lines))
	}
	// The first 250 in path order: d00..d11 fully, then 10 of d12.
	if lines[0] != "d00/f.txt:1:hit 0 0" || lines[249] != "d12/f.txt:10:hit 12 9" {
		t.Errorf("wrong window: first %q last %q", lines[0], lines[249])
	}
	mustContain(t, lines[250], "showing 250 of 801 matching lines in 41 files")

	got = w.ok("grep", obj{"pattern": "hit x+"})
	mustContain(t, got, "zz/long.txt:1:hit "+strings.Repeat("x", grepMaxLineBytes-4)+"… [704 more bytes]")
}

func TestGrepSkipsHugeFiles(t *testing.T) {
	w := newWorkspace(t)
	w.write("small.txt", "needle\n")
	big := filepath.Join(w.root, "big.txt")
	f, _ := os.Create(big)
	f.Truncate(grepMaxFileBytes + 1)
	f.WriteAt([]byte("needle\n"), 0)
	f.Close()
	got := w.ok("grep", obj{"pattern": "needle"})
	mustContain(t, got, "small.txt:1:needle", "skipped 1 file over 8 MB")
	if strings.Contains(got, "big.txt") {
		t.Error("huge file searched")
	}
}

func TestGrepRespectsAncestorGitignore(t *testing.T) {
	top := t.TempDir()
	os.MkdirAll(filepath.Join(top, ".git", "info"), 0o755)
	os.WriteFile(filepath.Join(top, ".git", "info", "exclude"), []byte("*.secret\n"), 0o644)
	os.WriteFile(filepath.Join(top, ".gitignore"), []byte("vendor/\n"), 0o644)
	ws := filepath.Join(top, "svc")
	for p, c := range map[string]string{"a.txt": "needle\n", "vendor/v.txt": "needle\n", "k.secret": "needle\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644)
	}
	ex := &Executor{Root: ws}
	r := ex.Run(context.Background(), "grep", `{"pattern":"needle"}`)
	if r.IsError || r.Text != "a.txt:1:needle\n" {
		t.Errorf("grep in a subdirectory of a repository: %q", r.Text)
	}
	r = ex.Run(context.Background(), "find_files", `{"pattern":"*"}`)
	if r.Text != "a.txt\n" {
		t.Errorf("find_files in a subdirectory of a repository: %q", r.Text)
	}
}

func TestIgnoreRules(t *testing.T) {
	set := &ignoreSet{dir: "/w", rules: parseIgnore([]byte(
		"# comment\n\n*.o\n/top.txt\ndocs/*.md\n**/tmp\nbuild/\n!keep.o\n\\#hash\ntrail \nlogs/**/*.log\n[ab].c\n?.h\n{x}.y\n"))}
	for _, tc := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"a.o", false, true}, {"deep/a.o", false, true}, {"keep.o", false, false}, {"deep/keep.o", false, false},
		{"top.txt", false, true}, {"sub/top.txt", false, false},
		{"docs/a.md", false, true}, {"docs/sub/a.md", false, false}, {"x/docs/a.md", false, false},
		{"tmp", true, true}, {"a/b/tmp", false, true},
		{"build", true, true}, {"build", false, false}, {"x/build", true, true},
		{"#hash", false, true}, {"comment", false, false},
		{"trail", false, true},
		{"logs/a/b/c.log", false, true}, {"logs/c.log", false, true}, {"c.log", false, false},
		{"a.c", false, true}, {"c.c", false, false}, {"z.h", false, true}, {"zz.h", false, false},
		{"{x}.y", false, true}, {"x.y", false, false},
	} {
		name := filepath.Base(tc.rel)
		if got := set.ignored("/w/"+tc.rel, name, tc.isDir); got != tc.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tc.rel, tc.isDir, got, tc.want)
		}
	}
	// A deeper file overrides its parent in both directions.
	child := &ignoreSet{dir: "/w/sub", rules: parseIgnore([]byte("!*.o\nlocal\n")), parent: set}
	if child.ignored("/w/sub/a.o", "a.o", false) {
		t.Error("child negation did not re-include")
	}
	if !child.ignored("/w/sub/local", "local", false) || set.ignored("/w/local", "local", false) {
		t.Error("child rule leaked to the parent or did not apply")
	}
}

func TestFindFiles(t *testing.T) {
	w := newWorkspace(t)
	w.write(
		".gitignore", "dist/\n",
		"go.mod", "", "main.go", "", "main_test.go", "",
		"cmd/melmux/main.go", "", "cmd/melmux/tool_test.go", "",
		"internal/a/b/c.go", "", "internal/a/b/c.md", "",
		"dist/out.go", "", ".git/HEAD", "", "docs/README.md", "",
	)
	for _, tc := range []struct {
		pattern, want string
	}{
		{"*.go", "cmd/melmux/main.go\ncmd/melmux/tool_test.go\ninternal/a/b/c.go\nmain.go\nmain_test.go\n"},
		{"*_test.go", "cmd/melmux/tool_test.go\nmain_test.go\n"},
		{"cmd/**/*.go", "cmd/melmux/main.go\ncmd/melmux/tool_test.go\n"},
		{"./cmd/*/main.go", "cmd/melmux/main.go\n"},
		{"**/*.md", "docs/README.md\ninternal/a/b/c.md\n"},
		{"internal/**", "internal/a/b/c.go\ninternal/a/b/c.md\n"},
		{"*.{mod,md}", "docs/README.md\ngo.mod\ninternal/a/b/c.md\n"},
		{"HEAD", `no files match "HEAD"`},
		{"dist/*", `no files match "dist/*"`},
	} {
		if got := w.ok("find_files", obj{"pattern": tc.pattern}); got != tc.want {
			t.Errorf("find_files %q:\n%s\nwant:\n%s", tc.pattern, got, tc.want)
		}
	}
	w.fails("find_files", obj{"pattern": "[a"}, "invalid glob")
	w.fails("find_files", obj{"pattern": "/etc/*"}, "is absolute")
	w.fails("find_files", obj{"pattern": " "}, "pattern is empty")

	for i := 0; i < findMaxResults+3; i++ {
		w.write(fmt.Sprintf("many/f%04d.txt", i), "")
	}
	got := w.ok("find_files", obj{"pattern": "many/*.txt"})
	mustContain(t, got, "many/f0499.txt\n", fmt.Sprintf("showing %d of %d matching files", findMaxResults, findMaxResults+3))
	if strings.Contains(got, "f0500") {
		t.Error("not capped")
	}
}
