package agentstate

// SetRules makes the engine weigh the screen by r from its next decision on,
// keeping what it remembers of earlier looks: a session that reads its
// config again gives its panes' engines the new rules without losing their
// states and histories.
func (e *Engine) SetRules(r *Rules) { e.rules = r }
