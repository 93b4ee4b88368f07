// Package toolexec runs the tools a model may call: the ten base tools of the
// product document (read_file, list_dir, grep, find_files, write_file,
// edit_file, run_command, web_search, write_plan, create_pdf), the shared
// project memory (remember, recall) and, through the PaneTools seam, the
// lead's pane tools.
//
// The model is one call, one result. Executor.Run takes a tool name and its
// JSON-encoded arguments exactly as a model emits them and returns a Result:
// the text the model will read, marked as an error when the tool refused or
// failed. Nothing a model sends can make Run panic or return a Go error; every
// bad input (arguments that are not a JSON object, an unknown or missing
// argument, a wrong type, a tool outside the executor's role) becomes an error
// result that names what was wrong and what is allowed, so the model can
// correct itself on the next call.
//
// Every path a tool touches is confined to the workspace root: it is resolved
// after symlinks (for a file that does not exist yet, through its deepest
// existing parent) and refused when it lands outside, unless the executor was
// built with AllowOutside on purpose. The access itself then goes through a
// descriptor of the root (os.Root: openat with O_NOFOLLOW on every
// component), so a directory swapped for a symlink after the check cannot
// lead it outside. Writes are atomic (a temporary file created in the target's
// directory through that directory's descriptor, fsync, renameat), so an
// interrupted write leaves the old file or the new one, never a torn one.
// Only regular files are read or replaced: a named pipe, a socket or a device
// is refused by type before a byte is read, and opened with O_NONBLOCK so
// the open itself cannot block. Arguments have size limits (limits.go) and
// errors quote at most a short prefix of an argument. Every tool honours its
// context. grep and find_files walk the whole
// workspace in parallel, honouring .gitignore files at every level (and
// those between the repository top and the workspace) and skipping .git.
// grep reads each file whole and finds candidate lines with bytes.Index on a
// literal every match must contain (exact, or ASCII case-folded), judging
// lines with a lazily built DFA; a pattern with no such literal runs the DFA
// over the whole file, one table lookup per byte. bench/toolexec_grep.sh
// compares it with ripgrep.
//
// Definitions gives the ToolDef list a model is sent for a role; the same
// table drives argument validation at execution time, so what a model is told
// and what the executor accepts cannot drift apart.
package toolexec
