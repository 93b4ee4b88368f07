// Package agentstate tells what a coding agent running in a pane is doing —
// working, waiting on a person, or idle — from what a person would look at:
// which program is in the foreground and the last lines of its screen. It is
// pure: the pane supplies the program name, the screen text and how long the
// output has been quiet; no polling happens here.
//
// The rules follow what agent managers have learned (see the research notes):
// a question with its choices on screen ("Do you want to proceed?", "Esc to
// cancel", aider's "(Y)es/(N)o") means waiting, whatever else shows; an
// interrupt hint ("esc to interrupt") or a spinner line means working; output
// within the last QuietAfter means working too; otherwise idle. Only the last
// lines of the screen count, so an old question scrolled up does not.
package agentstate
