package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// read_pane returns the screen as text and, when asked, history first.
func init() {
	register(&Command{Name: "read_pane", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.ReadPaneParams
		if err := decodeParams("read_pane", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("read_pane", p.Pane); err != nil {
			return nil, err
		}
		if p.Scrollback < 0 {
			return nil, errorf(proto.CodeBadParams, "read_pane: scrollback must be a number of lines >= 0, not %d", p.Scrollback)
		}
		e, err := s.lookup(p.Pane)
		if err != nil {
			return nil, err
		}
		t := e.p.Term()
		st := e.p.Status()
		cols, rows := t.Size()
		cur := t.Cursor()
		out := proto.ReadPaneResult{
			ID: p.Pane, Cols: cols, Rows: rows, Cursor: proto.Point{X: cur.X, Y: cur.Y},
			Title: e.title, Status: statusWord(st), ExitCode: st.ExitCode, Lines: t.Lines(),
		}
		if out.Title == "" {
			out.Title = programTitle(e)
		}
		switch {
		case p.All:
			out.History = t.History(-1)
		case p.Scrollback > 0:
			out.History = t.History(p.Scrollback)
		}
		// What does not fit in an answer is said before it is built, with
		// how much does: the last lines of the history, asked for by count.
		room := s.tune.maxResult - linesJSONLen(out.Lines) - jsonLen(out.Title) - 1<<10
		if size := linesJSONLen(out.History); size > room {
			fit := lastThatFit(out.History, room)
			return nil, errorf(proto.CodeAnswerTooLarge, "read_pane: pane %d's history of %d lines is %s as JSON, over the %s an answer may be: ask for the last %d lines or fewer (scrollback %d, read-pane --scrollback %d)",
				p.Pane, len(out.History), mib(size), mib(proto.MaxAnswer), fit, fit, fit)
		}
		return out, nil
	}})
}
