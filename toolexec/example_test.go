package toolexec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/melmux/melmux/toolexec"
)

// A model's tool call is a name and JSON-encoded arguments; the result is
// the text it reads back, marked when it is an error.
func ExampleExecutor_Run() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)

	ex := &toolexec.Executor{Root: root, Role: toolexec.RoleWorker}
	defer ex.Close()
	ctx := context.Background()

	res := ex.Run(ctx, "grep", `{"pattern":"func \\w+\\("}`)
	fmt.Print(res.Text)

	res = ex.Run(ctx, "read_file", `{"path":"../etc/passwd"}`)
	fmt.Println(res.IsError)

	res = ex.Run(ctx, "open_pane", `{"layout":"right"}`)
	fmt.Println(res.Text)
	// Output:
	// main.go:3:func main() {}
	// true
	// tool open_pane is not allowed for role worker (role worker allows: read_file, list_dir, grep, find_files, write_file, edit_file, run_command, web_search, write_plan, create_pdf, remember, recall)
}
