// Package agentcli is test support for running the real coding-agent CLIs
// (Claude Code, Codex) in melmux panes with no network: it finds the pinned
// install in a cache directory outside the repository, writes the private
// HOME that takes Claude Code straight to its prompt, and serves a scripted
// Anthropic Messages endpoint for it to talk to.
//
// The CLIs are installed by npm, not by the tests (400 MB is not something a
// `go test` should fetch): .ci/run runs InstallCommand into Dir. Tests call
// Claude, which skips with the install command when the binary is missing,
// or fails when MELMUX_REQUIRE_AGENTS=1 (CI).
//
// The endpoint (Anthropic) is the one fake at the edge: everything between
// the person's keys and the model's answer is real — melmux's pane, the
// agent's own input handling, its request and its screen. It records every
// request, so a test can check what the agent actually submitted.
package agentcli
