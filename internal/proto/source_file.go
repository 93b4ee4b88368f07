package proto

// SourceFileParams asks the server to read a config file again and make it
// the session's.
type SourceFileParams struct {
	// File is an absolute path; "" is the file the server started with.
	File string `json:"file,omitempty"`
}

// SourceFileResult is what source_file applied. A file that does not parse
// is an error instead, and the session's config stays as it was.
type SourceFileResult struct {
	File string `json:"file"`
	// Problems are the entries left out, each "FILE:LINE: KEY: what is
	// wrong"; the rest of the file applies.
	Problems []string `json:"problems,omitempty"`
	// Notes name the settings of the file that apply to sessions started
	// later, not to this one (shell, max_clients, remain_on_exit).
	Notes []string `json:"notes,omitempty"`
}
