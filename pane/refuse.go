package pane

// RefuseInput makes Type, Write and WriteContext fail with err, until it is
// called with nil: a pane that mirrors one on another host whose link is
// down says so to whoever types, rather than hold keys the program may never
// get or get long after they made sense. The emulator's own replies still
// go in: the mirror holds them for the link's return.
func (p *Pane) RefuseInput(err error) {
	if err == nil {
		p.refused.Store(nil)
		return
	}
	p.refused.Store(&err)
}

// refusal is the error RefuseInput set, nil for none.
func (p *Pane) refusal() error {
	if r := p.refused.Load(); r != nil {
		return *r
	}
	return nil
}
