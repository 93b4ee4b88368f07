// Package orchestrator is the Mel agent: the loop of legs (one paid model
// call each) that sends the conversation and the role's tool definitions to
// a provider, runs the tool calls it answers with through toolexec, appends
// the assistant message and one tool message per call (ids kept, order
// kept), and repeats until the model answers without calls.
//
// Providers (relay, openai, anthropic) map that one round trip onto their
// wire protocols; all three stream Server-Sent Events through one decoder
// and share one retry policy. The package has no terminal or socket code
// and does not know the session's wire: tools come from a
// toolexec.Executor, and the verb that runs an agent (internal/agentverbs)
// registers it with the session, takes its messages and reports its
// turns, and holds the REPL that shows it in a pane.
package orchestrator
