package toolexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Role selects which tools a model is offered and which the executor runs.
type Role string

// The roles, from the fewest tools to the most (docs/agent.md). Each
// includes the one before it.
const (
	RoleBase   Role = "base"
	RoleWorker Role = "worker"
	RoleLead   Role = "lead"
)

// ErrUnknownRole is returned (wrapped) by ParseRole for a name outside the
// role table.
var ErrUnknownRole = errors.New("unknown tool role")

// ParseRole accepts base, worker, lead and orchestrator (an alias of lead),
// ignoring case and surrounding space.
func ParseRole(s string) (Role, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "base":
		return RoleBase, nil
	case "worker":
		return RoleWorker, nil
	case "lead", "orchestrator":
		return RoleLead, nil
	}
	return "", fmt.Errorf("%w %q (roles: base, worker, lead, orchestrator)", ErrUnknownRole, s)
}

// normalize maps the zero Role to lead, the default of `melmux tool`, and the
// orchestrator alias to lead.
func (r Role) normalize() (Role, error) {
	if r == "" {
		return RoleLead, nil
	}
	return ParseRole(string(r))
}

// ToolDef is one tool as sent to a model: {"name","description","parameters"}.
type ToolDef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Parameters  Schema `json:"parameters"`
}

// Schema is the JSON Schema object describing a tool's arguments. Properties
// keep the document's order when marshalled.
type Schema struct {
	Required   []string
	Properties []Property
}

// Property is one argument of a tool.
type Property struct {
	Name        string
	Type        string // "string", "integer" or "boolean"
	Enum        []string
	Description string
}

// MarshalJSON writes {"type":"object","required":[...],"properties":{...}},
// omitting required when empty and keeping property order.
func (s Schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	if len(s.Required) > 0 {
		req, err := json.Marshal(s.Required)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"required":`)
		b.Write(req)
	}
	b.WriteString(`,"properties":{`)
	for i, p := range s.Properties {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		b.Write(name)
		b.WriteByte(':')
		val, err := json.Marshal(struct {
			Type        string   `json:"type"`
			Enum        []string `json:"enum,omitempty"`
			Description string   `json:"description,omitempty"`
		}{p.Type, p.Enum, p.Description})
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteString(`}}`)
	return b.Bytes(), nil
}

// UnmarshalJSON reads the shape MarshalJSON writes, so definitions can round
// trip (the orchestrator may load them from JSON).
func (s *Schema) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type       string          `json:"type"`
		Required   []string        `json:"required"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw.Type != "object" {
		return fmt.Errorf("parameters type is %q, want \"object\"", raw.Type)
	}
	s.Required = raw.Required
	s.Properties = nil
	if len(raw.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw.Properties))
	if _, err := dec.Token(); err != nil { // the opening brace
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var p struct {
			Type        string   `json:"type"`
			Enum        []string `json:"enum"`
			Description string   `json:"description"`
		}
		if err := dec.Decode(&p); err != nil {
			return err
		}
		s.Properties = append(s.Properties, Property{Name: name, Type: p.Type, Enum: p.Enum, Description: p.Description})
	}
	return nil
}

func (s Schema) property(name string) (Property, bool) {
	for _, p := range s.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}

func (s Schema) propertyNames() []string {
	names := make([]string, len(s.Properties))
	for i, p := range s.Properties {
		names[i] = p.Name
	}
	return names
}

var layoutEnum = []string{"right", "down", "tab"}

// baseTools, memoryTools and paneTools are the document's three groups, in
// its order. Descriptions tell the model what comes back, the limits and the
// errors, because that is all it has to go on.
var baseTools = []ToolDef{
	{Name: "read_file", Description: "Read a text file from the workspace. Returns the lines numbered from 1 " +
		"(\"   12\\tline text\"). offset skips that many lines, limit caps the lines returned (default 2000; " +
		"output also stops near 100 KB). A read that stops early ends with the offset to resume from. Lines over " +
		"2000 characters are cut with a note. Paths are relative to the workspace root (absolute paths must lie " +
		"inside it). Errors: missing file, a directory (use list_dir), a binary file, a path outside the workspace.",
		Parameters: Schema{Required: []string{"path"}, Properties: []Property{
			{Name: "path", Type: "string", Description: "file path, relative to the workspace root"},
			{Name: "offset", Type: "integer", Description: "lines to skip before the first line returned (default 0)"},
			{Name: "limit", Type: "integer", Description: "most lines to return (default 2000)"},
		}}},
	{Name: "list_dir", Description: "List a directory of the workspace (default: the workspace root). One entry " +
		"per line, sorted by name: kind (dir, file, link, other), size in bytes for files, then the name, with a " +
		"trailing / for directories and -> target for symlinks. At most 1000 entries; a longer listing ends with a " +
		"note giving the total.",
		Parameters: Schema{Properties: []Property{
			{Name: "path", Type: "string", Description: "directory, relative to the workspace root (default the root)"},
		}}},
	{Name: "grep", Description: "Search every text file of the workspace for an RE2 regular expression (Go " +
		"syntax; (?i) for case-insensitive), one line at a time. Honours .gitignore files at every level and " +
		"skips .git, binary files and files over 8 MB. Returns path:line:text lines sorted by path then line, at " +
		"most 250, long lines cut; when there are more, a note gives the total matches and files. There is no " +
		"path argument: the search is always project-wide. An invalid pattern is an error naming the problem.",
		Parameters: Schema{Required: []string{"pattern"}, Properties: []Property{
			{Name: "pattern", Type: "string", Description: "RE2 regular expression matched against each line"},
		}}},
	{Name: "find_files", Description: "Find files in the workspace whose path matches a glob: * and ? within " +
		"one path segment, ** across directories, [abc] and {a,b} alternatives. A pattern without / matches the " +
		"file name at any depth (\"*.go\"); one with / matches the path from the workspace root " +
		"(\"cmd/**/*_test.go\"). Honours .gitignore files and skips .git. Returns matching file paths, sorted, at " +
		"most 500; when there are more, a note gives the total.",
		Parameters: Schema{Required: []string{"pattern"}, Properties: []Property{
			{Name: "pattern", Type: "string", Description: "glob such as *.go or internal/**/*.md"},
		}}},
	{Name: "write_file", Description: "Create or replace a file with the given content. Parent directories are " +
		"created; an existing file keeps its permissions. The write is atomic: readers see the old file or the " +
		"new one, never a partial one. Returns the path, bytes and lines written, and whether the file was " +
		"created or replaced. To change part of a file, prefer edit_file.",
		Parameters: Schema{Required: []string{"path", "content"}, Properties: []Property{
			{Name: "path", Type: "string", Description: "file path, relative to the workspace root"},
			{Name: "content", Type: "string", Description: "the complete new content of the file"},
		}}},
	{Name: "edit_file", Description: "Replace an exact piece of text in a file. old_string must match the file " +
		"byte for byte (whitespace and indentation included) and, unless replace_all is true, exactly once: no " +
		"match is an error, and several matches are an error giving the count (add surrounding lines to make it " +
		"unique). The write is atomic. Files over 64 MB cannot be edited. Returns how many replacements were made " +
		"and the lines they start on.",
		Parameters: Schema{Required: []string{"path", "old_string", "new_string"}, Properties: []Property{
			{Name: "path", Type: "string", Description: "file path, relative to the workspace root"},
			{Name: "old_string", Type: "string", Description: "the exact text to replace"},
			{Name: "new_string", Type: "string", Description: "the text to put in its place"},
			{Name: "replace_all", Type: "boolean", Description: "replace every occurrence (default false)"},
		}}},
	{Name: "run_command", Description: "Run a shell command with sh -c in the workspace root, with no input " +
		"(stdin is closed, so interactive programs fail). Returns \"exit_code=N\" on the first line, then stdout " +
		"and stderr combined in the order they were written. Output over 30000 bytes keeps its head and tail with " +
		"a note of what was left out. A command still running at the time limit (default 10 minutes) is killed " +
		"with every process it started, and the result says so; a process started in the background with its " +
		"output redirected away (cmd >log 2>&1 &) is left running when the command ends normally.",
		Parameters: Schema{Required: []string{"command"}, Properties: []Property{
			{Name: "command", Type: "string", Description: "shell command line, run by sh -c"},
		}}},
	{Name: "web_search", Description: "Search the web. Returns up to 10 results, each a title, its URL and a " +
		"short snippet. Fails with an error naming the settings to make when no search backend is configured.",
		Parameters: Schema{Required: []string{"query"}, Properties: []Property{
			{Name: "query", Type: "string", Description: "search terms"},
		}}},
	{Name: "write_plan", Description: "Save a plan as Markdown at .melmux/plans/<slug>.md in the workspace, the " +
		"slug made from the title. Writing the same title again replaces that plan; a different title with the " +
		"same slug gets a numbered file. Returns the path written.",
		Parameters: Schema{Required: []string{"title", "markdown"}, Properties: []Property{
			{Name: "title", Type: "string", Description: "the plan's title"},
			{Name: "markdown", Type: "string", Description: "the plan, as Markdown"},
		}}},
	{Name: "create_pdf", Description: "Render Markdown (headings, paragraphs, emphasis, lists, code blocks, " +
		"tables) to a PDF file in the workspace, using the best engine available (headless Chrome, Chromium or " +
		"Edge, then wkhtmltopdf, then weasyprint, with a built-in renderer as the floor). Parent directories are " +
		"created. Returns the path, size and the engine that produced the file.",
		Parameters: Schema{Required: []string{"content", "output_path"}, Properties: []Property{
			{Name: "content", Type: "string", Description: "the document, as Markdown"},
			{Name: "output_path", Type: "string", Description: "where to write the PDF, relative to the workspace root"},
			{Name: "title", Type: "string", Description: "document title (default: the first heading)"},
		}}},
}

var memoryTools = []ToolDef{
	{Name: "remember", Description: "Save a note to this project's shared memory, which every agent working " +
		"on the project can recall, now and in later sessions. The project is the git repository (or directory) " +
		"of the workspace; there is no project argument. Keep each note short and self-contained.",
		Parameters: Schema{Required: []string{"note"}, Properties: []Property{
			{Name: "note", Type: "string", Description: "the fact, decision or finding to keep"},
		}}},
	{Name: "recall", Description: "Return every note saved with remember for this project, oldest first, " +
		"each with its date and time (UTC). Says so when there are none yet.",
		Parameters: Schema{}},
}

var paneToolDefs = []ToolDef{
	{Name: "open_pane", Description: "Open a new pane in the melmux session running a command (a CLI agent " +
		"such as claude or codex, or any shell command; default the user's shell). layout right splits beside " +
		"the current pane, down below it, tab opens a new tab; a split too small becomes a tab and the result " +
		"says so. Returns the new pane's id and its first screen; for a coding agent CLI (claude, codex, gemini, " +
		"aider...) it returns once the CLI has drawn that screen, ready for send_agent.",
		Parameters: Schema{Required: []string{"layout"}, Properties: []Property{
			{Name: "layout", Type: "string", Enum: layoutEnum, Description: "where the pane goes"},
			{Name: "command", Type: "string", Description: "command line to run in the pane (default the shell)"},
		}}},
	{Name: "spawn_agent", Description: "Start a Mel agent worker in a new pane, working on task. layout as for " +
		"open_pane. Returns the pane id, the agent id and its first lines; read_agent(pane) then waits for its " +
		"reply, send_agent(pane, text) gives it its next message.",
		Parameters: Schema{Required: []string{"layout", "task"}, Properties: []Property{
			{Name: "layout", Type: "string", Enum: layoutEnum, Description: "where the pane goes"},
			{Name: "model", Type: "string", Description: "model for the worker (default the session's)"},
			{Name: "task", Type: "string", Description: "the worker's task, self-contained"},
		}}},
	{Name: "send_keys", Description: "Type text into a pane as keys. A newline is Enter; vim-style key names " +
		"in angle brackets are keys (<Enter> <Tab> <Esc> <BS> <Up> <Down> <Left> <Right> <C-c> <M-x> <F1>..., " +
		"<lt> for a literal <). Returns the screen once the output settles. To answer an agent's question, send the key " +
		"it names (such as 1 or y); the result says whether the question went away.",
		Parameters: Schema{Required: []string{"pane", "text"}, Properties: []Property{
			{Name: "pane", Type: "integer", Description: "pane id (see list_panes)"},
			{Name: "text", Type: "string", Description: "text and keys to type"},
		}}},
	{Name: "send_agent", Description: "Give an agent its next message and return at once, without waiting " +
		"for the reply: a melmux agent queues it as a new turn, a coding agent CLI (claude, codex, gemini, " +
		"aider...) gets it typed and submitted; the result gives the turn id for read_agent. Any other program " +
		"(a shell) gets it typed and submitted as a person would, and the result says whether it was submitted, " +
		"with the screen. An error when the agent is waiting on a question: it names the question and the keys " +
		"that answer it (see send_keys).",
		Parameters: Schema{Required: []string{"pane", "text"}, Properties: []Property{
			{Name: "pane", Type: "integer", Description: "pane id of the agent"},
			{Name: "text", Type: "string", Description: "the message"},
		}}},
	{Name: "read_pane", Description: "Read a pane's screen as text, with its status (running or exited with " +
		"its code).",
		Parameters: Schema{Required: []string{"pane"}, Properties: []Property{
			{Name: "pane", Type: "integer", Description: "pane id"},
		}}},
	{Name: "read_agent", Description: "Wait (up to a bound) for the turn the last send_agent started to end, " +
		"for a melmux agent or a claude, codex or gemini CLI, and return how it ended: idle, with the turn's " +
		"whole reply (after the replies of earlier turns not read before, oldest first); a question, with its " +
		"text and the key answering each option (answer with send_keys); or exited. Call it once per turn, " +
		"never in a loop; read_agent calls of one response run together, each after a send_agent to its pane " +
		"before it. For other panes: the detected agent state, activity and the screen.",
		Parameters: Schema{Required: []string{"pane"}, Properties: []Property{
			{Name: "pane", Type: "integer", Description: "pane id"},
		}}},
	{Name: "list_panes", Description: "List the session's panes: id, tab, title, command, status, activity and " +
		"agent state.",
		Parameters: Schema{}},
}

// Definitions returns the tools a role is offered, in the document's order:
// base tools, then remember/recall (worker and lead), then the pane tools
// (lead). An unknown role gets the base tools; use ParseRole to reject it.
func Definitions(r Role) []ToolDef {
	r, err := r.normalize()
	if err != nil {
		r = RoleBase
	}
	out := append([]ToolDef(nil), baseTools...)
	if r == RoleWorker || r == RoleLead {
		out = append(out, memoryTools...)
	}
	if r == RoleLead {
		out = append(out, paneToolDefs...)
	}
	// Deep copies, so a caller editing its definitions cannot change what
	// the executor validates against.
	for i := range out {
		out[i].Parameters.Required = slices.Clone(out[i].Parameters.Required)
		props := slices.Clone(out[i].Parameters.Properties)
		for j := range props {
			props[j].Enum = slices.Clone(props[j].Enum)
		}
		out[i].Parameters.Properties = props
	}
	return out
}

// lookup finds a tool in the full table, whatever the role.
func lookup(name string) (ToolDef, bool) {
	for _, group := range [][]ToolDef{baseTools, memoryTools, paneToolDefs} {
		for _, d := range group {
			if d.Name == name {
				return d, true
			}
		}
	}
	return ToolDef{}, false
}

func isPaneTool(name string) bool {
	for _, d := range paneToolDefs {
		if d.Name == name {
			return true
		}
	}
	return false
}

func toolNames(defs []ToolDef) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}
