package cli

// HooksVerb is the verb hooks, run by run; standIn says it is melmux's
// stand-in that hands over to ServerBinary, which links the TOML parser
// that editing Codex's config.toml needs, rather than the real verb
// (internal/serveverb).
func HooksVerb(run func(g *Globals, args []string) error, standIn bool) *Verb {
	return &Verb{
		Name:  "hooks",
		Usage: "[--json] | install [--dry-run] [--melmux PATH] AGENT... | remove [--dry-run] AGENT...",
		Summary: "show, put in or take out melmux's hooks in the settings of Claude Code, Codex and Gemini CLI (AGENT: claude, codex, gemini or all), " +
			"so that one started without melmux (from a shell in a pane) reports its turns, replies and questions; Gemini CLI gets them no other way",
		Run: run, StandIn: standIn,
	}
}
