package term

// HistoryPage returns up to n rows of the history by place, with
// attributes as HistoryCells gives them, read under one lock: the rows
// just above place before (before 0: the newest rows), or with after > 0
// the rows from place after on. A place numbers a line of the history
// from the first line the terminal saved (the oldest line held is at
// place HistoryTotal-HistoryLen), so a line keeps its place while newer
// lines are saved and the oldest dropped, and a reader paging through a
// history that grows at the same time (a browser scrolled back in a pane
// that prints on) neither skips nor repeats a line. A resize that takes
// lines back onto the screen, or a clear, numbers them anew. first is
// the place of rows[0]; oldest and top bound the places the history
// holds now (top-oldest lines).
func (t *Terminal) HistoryPage(before, after uint64, n int) (rows [][]Cell, first, oldest, top uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	top = t.h.total
	oldest = top - uint64(t.h.n)
	if n <= 0 {
		return nil, top, oldest, top
	}
	var from, to uint64
	if after > 0 {
		from = max(after, oldest)
		to = min(from+uint64(n), top)
	} else {
		to = top
		if before > 0 {
			to = min(before, top)
		}
		from = oldest
		if to > oldest+uint64(n) {
			from = to - uint64(n)
		}
	}
	if from >= to {
		return nil, min(max(from, oldest), top), oldest, top
	}
	rows = make([][]Cell, to-from)
	for i := range rows {
		rows[i] = t.h.at(int(from-oldest) + i).cells(t.cols)
	}
	return rows, from, oldest, top
}
