package ui

// SetKeys replaces the prefix key and the bindings, as NewInput takes them,
// keeping the rest of the client's state (a prompt being typed, copy mode,
// the view): a session that reads its config again rebinds the clients
// attached to it. A prefix pressed under the old keys is forgotten. On an
// error the keys stay as they were.
func (in *Input) SetKeys(prefix string, bindings map[string]string) error {
	n, err := NewInput(prefix, bindings)
	if err != nil {
		return err
	}
	in.keys = n.keys
	in.prefix = false
	return nil
}
