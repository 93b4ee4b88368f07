// Package ui draws a melmux session onto a tcell.Screen and turns one client's
// keyboard and mouse input into actions.
//
// The model is deliberately one-way and free of server state. Each frame the
// session server fills a Scene — plain data: pane rectangles, copies of their
// screens, tabs, the status line's contents — and calls Draw with the client's
// tcell.Screen. Input flows the other way: each attached client owns an Input
// state machine (prefix key, command prompt, help overlay, copy mode) that
// turns tcell events into Actions — bytes for the focused pane or named
// commands — which the server executes. Nothing here blocks, does I/O or
// touches a pane, so the package is tested entirely against
// tcell.NewSimulationScreen with golden screens.
//
// The server's side, per client:
//
//	in, err := ui.NewInput(cfg.Prefix, cfg.Bindings) // once, at attach
//	in.SetPromptSupport(ps) // the server's prompt history, verbs and panes
//	// each frame:
//	sc := buildScene()      // panes, tabs, separators at the session size
//	in.Decorate(sc)         // prefix indicator, prompt, help, copy-mode view
//	ui.Draw(screen, sc)     // paints and calls screen.Show
//	// each tcell event, with the scene last drawn:
//	for _, a := range in.Handle(ev, sc) { execute(a) }
//
// where EnterCopy is answered with a.Start(in, snapshot, w, h, cx, cy),
// Copy with the paste buffer plus OSC52 written to the client's terminal,
// and RunLine by running the verb, its output of more than one line going
// back through in.ShowOutput(text, sc) on the client's goroutine.
//
// Synchronized output (mode 2026) contract: Draw shows whatever Screen a
// PaneView carries. While a pane's application holds synchronized output on,
// the server must hand Draw the last screen captured while the mode was off
// (the last complete frame), never the one being drawn; Draw does not second
// guess it. Copy mode works the same way: it views a snapshot (LineSource) the
// server took when copy mode began, so output arriving meanwhile does not
// move the text under the person's cursor, as in tmux.
package ui
