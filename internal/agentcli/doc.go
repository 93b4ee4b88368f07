// Package agentcli is test support for running the real coding-agent CLIs
// (Claude Code, Codex, Gemini CLI) in melmux panes with no network: it
// finds the pinned installs in a cache directory outside the repository,
// writes the private homes that take them straight to their prompts, and
// serves a scripted model for them to talk to.
//
// The CLIs are installed by npm, not by the tests (860 MB is not something a
// `go test` should fetch): .ci/run runs InstallCommand into Dir. Tests call
// CLI.Require, which skips with the install command when the binary is
// missing, or fails when MELMUX_REQUIRE_AGENTS=1 (CI).
//
// The model (Model: the Anthropic Messages API for Claude Code, the OpenAI
// Responses API for Codex, the Gemini API for Gemini CLI) is the one fake at
// the edge: everything between the person's keys and the model's answer is
// real — melmux's pane, the agent's own input handling, its request and its
// screen. It records every
// request, so a test can check what the agent actually submitted.
package agentcli
