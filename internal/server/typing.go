package server

import (
	"time"

	"github.com/melmux/melmux/pane"
)

// stallNotice is how long a program may take none of its waiting input
// before the person whose typing is held is told why.
const stallNotice = time.Second

// holdTyping is the back-pressure of an attached client's keyboard. A
// person's keystrokes are never dropped: they go to the pane whatever its
// backlog (pane.Type). Instead, while the pane last typed into has at least
// pane.InputLimit bytes waiting, the client's terminal (a proxy client's
// connection) is not read any further, so a fast paste waits in the
// client's terminal, as a terminal's kernel holds input a program is slow to
// read. What was already read (a read, or a few frames, each bounded) is all
// that can pile up behind the limit. Only when the program takes nothing for
// stallNotice is the person told; it runs on the reader of the terminal (or
// of the frames), never on the client's drawing loop.
func (c *client) holdTyping() {
	id := int(c.typedPane.Load())
	if id == 0 {
		return
	}
	e, err := c.s.lookup(id)
	if err != nil {
		return
	}
	told := false
	notice := time.NewTimer(stallNotice)
	defer notice.Stop()
	for {
		n, less := e.p.Backlog()
		if n < pane.InputLimit {
			if told {
				c.say("pane %d is reading its input again", id)
				c.invalidate()
			}
			return
		}
		select {
		case <-less:
		case <-e.p.Exited():
			return
		case <-c.tty.gone():
			return
		case <-c.tty.woken(): // the screen is finishing
			return
		case <-notice.C:
			if stalled := e.p.InputStalled(); stalled < stallNotice {
				notice.Reset(stallNotice - stalled)
				continue
			}
			// Said again while it lasts: a message shows for 3 s.
			c.say("pane %d is not reading its input: what you type waits until it does (kill-pane -t %d ends it)", id, id)
			c.invalidate()
			told = true
			notice.Reset(stallNotice)
		}
	}
}
