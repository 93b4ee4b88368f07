package toolexec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfinement(t *testing.T) {
	w := newWorkspace(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	w.write("inside.txt", "ok\n", "sub/x.txt", "x\n")
	os.Symlink(outside, filepath.Join(w.root, "escape"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(w.root, "secret-link"))
	os.Symlink(filepath.Join(outside, "not-yet.txt"), filepath.Join(w.root, "dangling"))
	os.Symlink("sub", filepath.Join(w.root, "inner"))

	for _, tc := range []struct {
		tool string
		args obj
	}{
		{"read_file", obj{"path": "../" + filepath.Base(w.root) + "/../x"}},
		{"read_file", obj{"path": filepath.Join(outside, "secret.txt")}},
		{"read_file", obj{"path": "escape/secret.txt"}},
		{"read_file", obj{"path": "secret-link"}},
		{"write_file", obj{"path": "escape/new/deep.txt", "content": "x"}},
		{"write_file", obj{"path": "dangling", "content": "x"}},
		{"write_file", obj{"path": "/tmp/melmux-escape.txt", "content": "x"}},
		{"edit_file", obj{"path": "secret-link", "old_string": "secret", "new_string": "public"}},
		{"list_dir", obj{"path": ".."}},
		{"create_pdf", obj{"content": "# x", "output_path": "escape/x.pdf"}},
	} {
		text := w.fails(tc.tool, tc.args, "outside the workspace root", w.root)
		if !strings.Contains(text, fmt.Sprint(tc.args["path"])) && tc.args["path"] != nil {
			t.Errorf("%s: error does not name the path %v: %s", tc.tool, tc.args["path"], text)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("a refused write created a directory outside")
	}
	if _, err := os.Stat(filepath.Join(outside, "not-yet.txt")); err == nil {
		t.Error("a write through a dangling link landed outside")
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "secret\n" {
		t.Error("a refused edit changed a file outside")
	}
	// Links that stay inside are fine, and shown relative to the root.
	mustContain(t, w.ok("read_file", obj{"path": "inner/x.txt"}), "1\tx")
	mustContain(t, w.ok("write_file", obj{"path": "inner/y.txt", "content": "y"}), "sub/y.txt")
	mustContain(t, w.ok("read_file", obj{"path": filepath.Join(w.root, "inside.txt")}), "1\tok")

	// AllowOutside widens it on purpose.
	w.ex.AllowOutside = true
	mustContain(t, w.ok("read_file", obj{"path": "escape/secret.txt"}), "1\tsecret")
}

func TestReadFile(t *testing.T) {
	w := newWorkspace(t)
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	w.write("long.txt", long.String(), "short.txt", "alpha\r\nbeta\ngamma", "empty.txt", "",
		"wide.txt", "x"+strings.Repeat("é", 1500)+"\nnext\n", "dir/f", "f\n")
	os.WriteFile(filepath.Join(w.root, "bin.dat"), []byte("abc\x00def"), 0o644)

	got := w.ok("read_file", obj{"path": "short.txt"})
	if got != "     1\talpha\n     2\tbeta\n     3\tgamma\n" {
		t.Errorf("short.txt: %q", got)
	}
	got = w.ok("read_file", obj{"path": "short.txt", "offset": 1, "limit": 1})
	mustContain(t, got, "     2\tbeta\n", "offset=2 to continue", "1 more lines")
	if strings.Contains(got, "alpha") || strings.Contains(got, "gamma\n") {
		t.Errorf("offset/limit ignored: %q", got)
	}

	got = w.ok("read_file", obj{"path": "long.txt"})
	mustContain(t, got, "     1\tline 1\n", "  2000\tline 2000\n", "500 more lines", "offset=2000")
	if strings.Contains(got, "line 2001") {
		t.Error("default limit not applied")
	}
	got = w.ok("read_file", obj{"path": "long.txt", "offset": 2000})
	mustContain(t, got, "  2001\tline 2001\n", "  2500\tline 2500\n")
	if strings.Contains(got, "continue") {
		t.Errorf("a read to the end says it stopped: %q", got[len(got)-100:])
	}

	got = w.ok("read_file", obj{"path": "wide.txt"})
	mustContain(t, got, "[line cut: 1999 of 3001 bytes shown]", "2\tnext")

	mustContain(t, w.ok("read_file", obj{"path": "empty.txt"}), "empty.txt is empty")

	// A line far longer than the read buffer is cut without being held whole.
	w.write("min.js", "var a=1;"+strings.Repeat("x", 300000)+"\nlast")
	got = w.ok("read_file", obj{"path": "min.js"})
	mustContain(t, got, "     1\tvar a=1;xx", "[line cut: 2000 of 300008 bytes shown]\n     2\tlast\n")

	w.fails("read_file", obj{"path": "nope.txt"}, "no such file: nope.txt")
	w.fails("read_file", obj{"path": "bin.dat"}, "bin.dat is a binary file")
	w.fails("read_file", obj{"path": "dir"}, "dir is a directory", "list_dir")
	w.fails("read_file", obj{"path": "short.txt", "offset": 3}, "has 3 lines", "offset 3 is past the end")
	w.fails("read_file", obj{"path": "short.txt", "offset": -1}, "offset must be 0 or more")
	w.fails("read_file", obj{"path": "short.txt", "limit": 0}, "limit must be 1 or more")
	w.fails("read_file", obj{"path": ""}, "path is empty")

	// The byte cap stops a read of very long lines early with a resume offset.
	w.write("fat.txt", strings.Repeat(strings.Repeat("y", 1500)+"\n", 200))
	got = w.ok("read_file", obj{"path": "fat.txt"})
	mustContain(t, got, "call read_file with offset=")
	if len(got) > readMaxBytes+4000 {
		t.Errorf("read of %d bytes exceeds the cap", len(got))
	}
}

func TestListDir(t *testing.T) {
	w := newWorkspace(t)
	w.write("b.txt", "12345", "a/x", "", ".hidden", "h")
	os.Symlink("b.txt", filepath.Join(w.root, "c-link"))
	got := w.ok("list_dir", nil)
	want := ".:\n" +
		"file           1  .hidden\n" +
		"dir            -  a/\n" +
		"file           5  b.txt\n" +
		"link           -  c-link -> b.txt\n"
	if got != want {
		t.Errorf("list_dir:\n%s\nwant:\n%s", got, want)
	}
	mustContain(t, w.ok("list_dir", obj{"path": "a"}), "a:\n", "x\n")
	w.fails("list_dir", obj{"path": "missing"}, "no such directory: missing")
	w.fails("list_dir", obj{"path": "b.txt"}, "b.txt is a file", "read_file")

	for i := 0; i < listDirMax+5; i++ {
		w.write(fmt.Sprintf("many/f%04d", i), "")
	}
	got = w.ok("list_dir", obj{"path": "many"})
	mustContain(t, got, "f0999", fmt.Sprintf("[listing cut at %d of %d entries]", listDirMax, listDirMax+5))
	if strings.Contains(got, "f1000") {
		t.Error("listing not cut")
	}
	os.Mkdir(filepath.Join(w.root, "void"), 0o755)
	mustContain(t, w.ok("list_dir", obj{"path": "void"}), "void is empty")
}

func TestWriteFile(t *testing.T) {
	w := newWorkspace(t)
	got := w.ok("write_file", obj{"path": "deep/er/new.txt", "content": "a\nb\n"})
	mustContain(t, got, "created deep/er/new.txt: 4 bytes, 2 lines")
	if w.read("deep/er/new.txt") != "a\nb\n" {
		t.Error("content not written")
	}
	w.write("script.sh", "#!/bin/sh\n")
	os.Chmod(filepath.Join(w.root, "script.sh"), 0o751)
	mustContain(t, w.ok("write_file", obj{"path": "script.sh", "content": "#!/bin/sh\necho hi"}), "replaced script.sh", "2 lines")
	fi, _ := os.Stat(filepath.Join(w.root, "script.sh"))
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	mustContain(t, w.ok("write_file", obj{"path": "empty", "content": ""}), "0 bytes, 0 lines")
	w.fails("write_file", obj{"path": "deep", "content": "x"}, "deep", "is a directory")
	w.fails("write_file", obj{"path": "script.sh"}, `missing required argument "content"`)
	// No temporary files are left behind.
	entries, _ := os.ReadDir(w.root)
	for _, e := range entries {
		if strings.Contains(e.Name(), "melmux-tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	// A symlink in the workspace is written through, and stays a link.
	os.Symlink("script.sh", filepath.Join(w.root, "alias.sh"))
	w.ok("write_file", obj{"path": "alias.sh", "content": "new"})
	if fi, _ := os.Lstat(filepath.Join(w.root, "alias.sh")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("writing through a symlink replaced the link")
	}
	if w.read("script.sh") != "new" {
		t.Error("write through link did not reach the target")
	}
}

func TestEditFile(t *testing.T) {
	w := newWorkspace(t)
	w.write("f.go", "package f\n\nfunc A() {}\nfunc B() {}\nfunc A2() {}\n")
	os.Chmod(filepath.Join(w.root, "f.go"), 0o600)
	got := w.ok("edit_file", obj{"path": "f.go", "old_string": "func B() {}", "new_string": "func B() int { return 1 }"})
	mustContain(t, got, "edited f.go: 1 replacement, at line 4")
	if !strings.Contains(w.read("f.go"), "func B() int { return 1 }\n") {
		t.Error("edit not applied")
	}
	if fi, _ := os.Stat(filepath.Join(w.root, "f.go")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	w.fails("edit_file", obj{"path": "f.go", "old_string": "func A", "new_string": "func Z"}, "occurs 2 times in f.go", "replace_all")
	got = w.ok("edit_file", obj{"path": "f.go", "old_string": "func A", "new_string": "func Z", "replace_all": true})
	mustContain(t, got, "2 replacements, at lines 3, 5")
	if strings.Contains(w.read("f.go"), "func A") {
		t.Error("replace_all left a match")
	}
	w.fails("edit_file", obj{"path": "f.go", "old_string": "func Q", "new_string": "x"}, "old_string not found in f.go")
	w.fails("edit_file", obj{"path": "f.go", "old_string": "  package f", "new_string": "x"}, "not found", "whitespace")
	w.fails("edit_file", obj{"path": "f.go", "old_string": "", "new_string": "x"}, "old_string is empty", "write_file")
	w.fails("edit_file", obj{"path": "f.go", "old_string": "x", "new_string": "x"}, "the same")
	w.fails("edit_file", obj{"path": "nope.go", "old_string": "a", "new_string": "b"}, "no such file: nope.go")
	os.WriteFile(filepath.Join(w.root, "b.bin"), []byte("a\x00b"), 0o644)
	w.fails("edit_file", obj{"path": "b.bin", "old_string": "a", "new_string": "b"}, "b.bin is a binary file")
	os.Mkdir(filepath.Join(w.root, "d"), 0o755)
	w.fails("edit_file", obj{"path": "d", "old_string": "a", "new_string": "b"}, "d is a directory")
}
