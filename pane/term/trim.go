package term

// Trim lets go of what the terminal holds only to take in output fast, for
// a pane whose output has gone quiet: the model of the screen (written into
// vt10x first, which is what any other use of vt10x would do) and the
// scratch buffers a flood grew; and it compresses the history saved since
// the last time (history.freeze). Nothing a reader can see changes. The
// next flood makes them again.
func (t *Terminal) Trim() {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.joined = nil
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.model != nil {
		t.guardLocked(func() {})
	}
	t.flushLocked()
	t.out, t.matBuf = nil, nil
	t.glyphBuf, t.scratch, t.textBuf, t.runBuf, t.startBuf, t.packBuf, t.liveBuf = nil, nil, nil, nil, nil, nil, nil
	t.sgrMemo = nil
	t.h.freeze()
}
