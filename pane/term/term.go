package term

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// DefaultScrollback is the number of history lines kept when
// Options.Scrollback is zero.
const DefaultScrollback = 10000

// Size limits. vt10x keeps two full screens of 16-byte glyphs, so an
// unbounded size from a confused caller could ask for gigabytes; these bounds
// are far beyond any real window.
const (
	MaxCols = 2000
	MaxRows = 1000
)

// writeChunk bounds how many input bytes are processed under one lock hold,
// so that a reader calling Snapshot never waits behind a megabyte write.
const writeChunk = 4096

// Options configure a Terminal.
type Options struct {
	// Scrollback is the number of history lines kept: 0 means
	// DefaultScrollback, a negative value keeps none.
	Scrollback int
	// Reply receives answers to device queries (DA1, DA2, DSR, CPR). It is
	// called synchronously from Write, after the terminal's lock has been
	// released, and must not block: the caller queues the bytes for the PTY.
	Reply func([]byte)
	// Logf receives recovered emulator panics and clamped sizes; nil discards.
	Logf func(format string, args ...any)
}

// Terminal is one emulated screen: a scanner that conditions the byte stream,
// hinshun/vt10x holding the cells, and a scrollback ring.
type Terminal struct {
	reply func([]byte)
	logf  func(format string, args ...any)

	// wmu serialises writers (one write's pieces never interleave with
	// another's) and guards joined.
	wmu    sync.Mutex
	joined []byte // a kept tail and the write it continues

	// mu guards every field below, the vt10x instance included: vt10x's own
	// lock is never taken by this package except inside vt10x's Write and
	// Resize, which lock themselves, and this mutex serialises those calls
	// with the unlocked getters (Cell, Cursor, Mode).
	mu sync.Mutex
	vt vt10x.Terminal // nil while retired (retire.go): frozen holds the screen
	sc scanner
	h  history

	// frozen is a retired terminal's screen; retireNo the state a refusal
	// to retire was made in; changes counts writes and resizes, for it.
	frozen   *frozenScreen
	retireNo retireKey
	changes  uint64

	cols, rows int
	out        []byte // normalised bytes waiting to be fed to vt10x

	// Cursor knowledge between flushes: valid only while curValid is set;
	// printing updates it by simulation so that plain text needs no flush.
	curValid bool
	cx, cy   int
	wrapNext bool
	origin   bool
	vmode    vt10x.ModeFlag

	top, bottom int // scroll region, tracked here because vt10x does not expose it

	// screenBlank is set when the screen was just cleared and nothing but
	// cursor moves and pen changes followed, so that a flood of clears does
	// not rescan a blank screen for scroll-on-clear each time.
	screenBlank bool
	// uniform is set while every cell of the screen shown is what a clear
	// with the current pen leaves, blank to scroll-on-clear (a clear, then
	// nothing but cursor moves and scrolls that bring in the same cells), so
	// that another clear need not reach vt10x; uniformDefault when those
	// cells are vt10x's default blank, which is also what scrolls in.
	uniform        bool
	uniformDefault bool

	// tabsDefault is set while vt10x's tab stops are its defaults, every 8
	// columns (a fresh emulator, RIS, a resize); HTS and TBC clear it. The
	// fast path lays out tabs only then.
	tabsDefault bool

	// The model of the screen (fast.go). fastOff keeps to the plain path
	// (tests compare the two); noFast is the offset in the current write
	// before which the model is known not to apply; importMin the stretch
	// that starts one; model, when set, is the screen as vt10x would hold
	// it, vt10x being behind; fastLines counts the lines sent to history
	// from the model, fastBytes the input the model took.
	fastOff   bool
	noFast    int
	importMin int
	resume    bool // the model was written into vt10x: try a new one after what did it
	// altEntered is set when the alternate screen was just entered: a
	// model of it starts on a stretch of any length, since leaving it
	// writes none of its rows back (altLeave).
	altEntered bool
	// altLeave is set when the walk ended at the alternate screen's
	// leave: the model's rows are not written back, as the leave clears
	// them.
	altLeave bool
	// altBlank is what every cell of vt10x's alternate screen holds while
	// the primary one is shown (altBlankKnown): its last leave cleared it
	// with the pen. altUniform is set while the alternate screen shown
	// still holds only that (entered, nothing written to vt10x since), so
	// that a model of it is made without reading vt10x.
	altBlank      vt10x.Glyph
	altBlankKnown bool
	altUniform    bool
	model         *screenModel
	matBuf        []byte            // scratch for materializeLocked
	modeBuf       []byte            // scratch for a DECSET the model writes into vt10x (fastWalk.privateModes)
	tail          []byte            // the start of an element the input ended in, kept for the next write (modelLocked)
	sgrMemo       map[string]string // what the scanner makes of an SGR's parameter bytes (fastWalk.sgr)
	fastLines     uint64
	fastBytes     uint64

	insert     bool
	bracketed  bool
	syncOutput bool
	shape      CursorShape
	title      string
	bells      uint64
	signals    Signals // the last OSC notification, prompt mark, program status

	lastPrint rune // the last printed cell content for REP; 0 after anything else
	lastWidth int
	joining   bool // a zero width joiner is held: it and the next non-ASCII rune join the cell before the cursor

	clusters clusterTable
	hidden   []rune       // cluster codes on the primary screen while the alternate one is shown
	primary  savedPrimary // the primary screen while the alternate one is shown (altscreen.go)
	liveBuf  []bool       // scratch for reclaimClustersLocked

	// Scratch buffers reused across reads of rows, so that capturing a
	// line into history costs one string and no per-cell allocation.
	glyphBuf []vt10x.Glyph
	scratch  []Cell
	textBuf  []byte
	runBuf   []styleRun
	startBuf []uint16
	packBuf  []byte

	replies []byte   // replies produced during a Write, delivered after unlock
	logs    []string // log lines produced during a Write, delivered after unlock
}

// New returns a terminal of cols x rows cells. Sizes are clamped to
// 1..MaxCols and 1..MaxRows (a clamp is logged).
func New(cols, rows int, opts Options) *Terminal {
	t := &Terminal{reply: opts.Reply, logf: opts.Logf}
	limit := opts.Scrollback
	if limit == 0 {
		limit = DefaultScrollback
	}
	if limit < 0 {
		limit = 0
	}
	t.h.limit = limit
	t.importMin = importMin
	t.clusters.reclaim = t.reclaimClustersLocked
	t.cols, t.rows = t.clampSizeLocked(cols, rows)
	t.newEmulatorLocked()
	t.deliver()
	return t
}

func (t *Terminal) clampSizeLocked(cols, rows int) (int, int) {
	c := min(max(cols, 1), MaxCols)
	r := min(max(rows, 1), MaxRows)
	if c != cols || r != rows {
		t.logs = append(t.logs, fmt.Sprintf("term: size %dx%d clamped to %dx%d (allowed 1..%d x 1..%d)", cols, rows, c, r, MaxCols, MaxRows))
	}
	return c, r
}

// newEmulatorLocked replaces the vt10x instance with a fresh one of the
// current size and resets what this package tracks about it. History, title
// and bell count survive: they are the pane's, not the emulator's.
func (t *Terminal) newEmulatorLocked() {
	t.vt = vt10x.New(vt10x.WithSize(t.cols, t.rows))
	t.model = nil
	t.out = t.out[:0]
	t.top, t.bottom = 0, t.rows-1
	t.insert, t.bracketed, t.syncOutput = false, false, false
	t.shape = CursorDefault
	t.lastPrint, t.lastWidth = 0, 0
	t.joining = false
	t.hidden = t.hidden[:0] // both screens are blank
	t.primary = savedPrimary{}
	t.altBlankKnown, t.altUniform = false, false
	t.curValid = false
	t.touchedLocked()
	t.tabsDefault = true
	t.sc.reset()
}

// Write feeds program output to the terminal. It consumes all of p and always
// returns len(p), nil: malformed input is repaired or dropped, never refused.
// The whole of p is lookahead for the model of the screen (fast.go), so a
// caller should pass what it has in one call rather than in small pieces.
func (t *Terminal) Write(p []byte) (int, error) {
	n := len(p)
	t.wmu.Lock()
	defer t.wmu.Unlock()
	p = t.beginWrite(p)
	for len(p) > 0 {
		used := t.writePiece(p)
		t.deliver()
		p = p[used:]
	}
	return n, nil
}

// beginWrite counts a change and gives p behind the incomplete sequence the
// last Write left over, if any. The caller holds wmu.
func (t *Terminal) beginWrite(p []byte) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.changes++
	t.noFast = 0
	if len(t.tail) > 0 {
		t.joined = append(append(t.joined[:0], t.tail...), p...)
		p = t.joined
		t.tail = t.tail[:0]
	}
	return p
}

// writePiece feeds the emulator the next piece of p (at most writeChunk
// bytes, or a stretch the model of the screen takes whole) and says how
// much it took. Each piece is its own locked section, so that a reader waits
// for one piece, never a whole Write, and the replies it makes are delivered
// before the next.
func (t *Terminal) writePiece(p []byte) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	used := t.scanLocked(p, writeChunk)
	t.noFast = max(t.noFast-used, 0)
	t.flushLocked()
	return used
}

// deliver hands queued replies and log lines to the callbacks. It runs
// without the lock so that a callback may call back into the Terminal.
func (t *Terminal) deliver() {
	replies, logs := t.takeQueued()
	if len(replies) > 0 && t.reply != nil {
		t.reply(replies)
	}
	if t.logf != nil {
		for _, l := range logs {
			t.logf("%s", l)
		}
	}
}

// takeQueued takes the replies and log lines queued for deliver.
func (t *Terminal) takeQueued() (replies []byte, logs []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	replies, logs = t.replies, t.logs
	t.replies, t.logs = nil, nil
	return replies, logs
}

// Resize changes the screen size. Lines pushed off the top of the primary
// screen by a shrink go to history, and a grow pulls lines that scrolled
// into history back onto the screen (not those a clear put there), as tmux
// does. A change of width on the primary screen reflows it and the newest
// reflowRows rows of history (reflow.go): long lines are wrapped again at
// the new width and lines the program's output wrapped are joined again,
// the cursor staying on its character. The alternate screen is not
// reflowed, nor history while it is shown. Tab stops are reset to every 8
// columns of the new width.
func (t *Terminal) Resize(cols, rows int) {
	t.resize(cols, rows)
	t.deliver()
}

// resize is Resize's locked section: what it logs is delivered after.
func (t *Terminal) resize(cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.changes++
	t.resizeLocked(cols, rows)
}

func (t *Terminal) resizeLocked(cols, rows int) {
	cols, rows = t.clampSizeLocked(cols, rows)
	if cols == t.cols && rows == t.rows {
		return
	}
	t.syncCursorLocked()
	if cols != t.cols && !t.altLocked() && t.reflowResizeLocked(cols, rows) {
		return
	}
	wrap, oldCols := t.wrapNext, t.cols
	// vt10x slides the screen up so that the cursor stays visible; those
	// rows would be lost, so they become history first, as in tmux.
	if slide := t.cy - rows + 1; slide > 0 && !t.altLocked() {
		t.captureRowsLocked(0, slide)
	}
	// What the resize adds is blank in default colours, as in tmux: vt10x
	// would fill it with the pen, which is set again afterwards.
	var pen vt10x.Glyph
	t.guardLocked(func() { pen = t.vt.Cursor().Attr })
	t.out = append(t.out, "\x1b[0m"...)
	t.flushLocked()
	if t.altLocked() {
		t.primary.resized = true
	}
	t.resizeVTLocked(cols, rows)
	t.touchedLocked()
	grown := rows - t.rows
	t.cols, t.rows = cols, rows
	t.top, t.bottom = 0, rows-1
	t.curValid = false
	t.syncCursorLocked()
	if pull := min(grown, t.h.scrolled); pull > 0 && !t.altLocked() {
		t.pullHistoryLocked(pull, pen.Mode&vtGfx != 0)
		t.syncCursorLocked()
	}
	t.resetTabsLocked()
	// vt10x drops a pending wrap (the cursor past the last column, as tmux
	// has it). tmux keeps it when the width stays. A change of width on the
	// alternate screen is not reflowed: after a widening the cursor is on
	// the column after the old last one, after a narrowing on the last
	// column, not pending.
	x := t.cx
	if wrap && cols > oldCols {
		x = oldCols
	}
	t.out = appendCSI1(t.out, x+1, 'G')
	t.out = appendSGRForGlyph(t.out, pen, false)
	if wrap && cols == oldCols {
		t.pendWrapLocked(pen)
	}
	t.tabsDefault = true
	t.curValid = false
	t.flushLocked()
}

// resizeVTLocked resizes vt10x, which changes both screens: what is known
// of the hidden one is forgotten.
func (t *Terminal) resizeVTLocked(cols, rows int) {
	t.altBlankKnown, t.altUniform = false, false
	t.primary.cached = false
	t.guardLocked(func() { t.vt.Resize(cols, rows) })
}

// resetTabsLocked sets a tab stop every 8 columns of the width: vt10x
// keeps the old stops and adds none beyond the old width. The saved cursor
// is not touched.
func (t *Terminal) resetTabsLocked() {
	t.out = append(t.out, "\x1b[3g"...)
	for x := 8; x < t.cols; x += 8 {
		t.out = appendCSI1(t.out, x+1, 'G')
		t.out = append(t.out, "\x1bH"...)
	}
}

// pendWrapLocked makes the wrap pending again with the cursor on the last
// column of its row: vt10x sets it only by printing there, so the cell there
// is printed again as it is (in the ASCII set, the glyph holding the
// character as shown), and the pen is set back.
func (t *Terminal) pendWrapLocked(pen vt10x.Glyph) {
	t.syncCursorLocked()
	var g vt10x.Glyph
	t.guardLocked(func() { g = t.vt.Cell(t.cols-1, t.cy) })
	gfx := pen.Mode&vtGfx != 0
	if gfx {
		t.out = append(t.out, "\x1b(B"...)
	}
	t.out = appendCUP(t.out, t.cy, t.cols-1)
	t.out = appendSGRForGlyph(t.out, g, true)
	if g.Char == 0 {
		g.Char = ' '
	}
	t.out = utf8.AppendRune(t.out, g.Char)
	if gfx {
		t.out = append(t.out, "\x1b(0"...)
	}
	t.out = appendSGRForGlyph(t.out, pen, false)
	t.curValid = false
}

// Size returns the screen size in cells.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// Modes returns the modes the program has set.
func (t *Terminal) Modes() Modes {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.modesLocked()
}

func (t *Terminal) modesLocked() Modes {
	var m vt10x.ModeFlag
	if f := t.frozen; f != nil {
		m = f.mode
	} else {
		t.peekLocked(func() { m = t.vt.Mode() })
	}
	return Modes{
		AppCursor:      m&vt10x.ModeAppCursor != 0,
		AppKeypad:      m&vt10x.ModeAppKeypad != 0,
		BracketedPaste: t.bracketed,
		AltScreen:      m&vt10x.ModeAltScreen != 0,
		SyncOutput:     t.syncOutput,
		MouseX10:       m&vt10x.ModeMouseX10 != 0,
		MouseButton:    m&vt10x.ModeMouseButton != 0,
		MouseDrag:      m&vt10x.ModeMouseMotion != 0,
		MouseMotion:    m&vt10x.ModeMouseMany != 0,
		MouseSGR:       m&vt10x.ModeMouseSgr != 0,
		FocusEvents:    m&vt10x.ModeFocus != 0,
		CursorHidden:   m&vt10x.ModeHide != 0,
		Insert:         t.insert,
	}
}

// Title returns the last title set with OSC 0 or 2, in full.
func (t *Terminal) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.title
}

// Bells returns how many BEL characters were seen outside strings.
func (t *Terminal) Bells() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bells
}

// Cursor returns the cursor position (0-based, always inside the screen),
// visibility and shape.
func (t *Terminal) Cursor() Cursor {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cursorLocked()
}

func (t *Terminal) cursorLocked() Cursor {
	var c vt10x.Cursor
	var vis bool
	if f := t.frozen; f != nil {
		c, vis = f.cursor, f.visible
	} else {
		t.peekLocked(func() {
			c = t.vt.Cursor()
			vis = t.vt.CursorVisible()
		})
	}
	if m := t.model; m != nil {
		c.X, c.Y = m.x, m.y
	}
	return Cursor{
		X:       min(max(c.X, 0), t.cols-1),
		Y:       min(max(c.Y, 0), t.rows-1),
		Visible: vis,
		Shape:   t.shape,
	}
}

// HistoryLen returns the number of lines in the scrollback.
func (t *Terminal) HistoryLen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.h.n
}

// HistoryTotal counts the places in the stream of lines saved to history,
// and only grows, so that a reader that remembers it can tell how many lines
// scrolled off since (TextSince gives them). Each line saved takes the next
// place, with one exception that keeps a reader from seeing a line twice: a
// line a grow took back from history onto the screen that scrolls off again
// unchanged (a shrink, a line feed, a clear) takes its old place again, not
// counted anew. A line taken back that the program changes, or that does
// not come back first, is new when it scrolls off.
func (t *Terminal) HistoryTotal() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.h.total
}

// History returns the last n history lines (all of them when n < 0), oldest
// first, as text like Lines.
func (t *Terminal) History(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n < 0 || n > t.h.n {
		n = t.h.n
	}
	out := make([]string, n)
	for i := range n {
		out[i] = t.h.at(t.h.n - n + i).textTrimmed()
	}
	return out
}

// HistoryCells returns up to n history rows starting at index from (0 is the
// oldest line), with attributes. Each row has as many cells as the screen had
// columns when the line was saved or last laid out again by a reflow, or the
// current width if that is larger.
// Out-of-range requests are clipped; an empty result means nothing matched.
func (t *Terminal) HistoryCells(from, n int) [][]Cell {
	t.mu.Lock()
	defer t.mu.Unlock()
	if from < 0 {
		from = 0
	}
	if n < 0 || from+n > t.h.n {
		n = t.h.n - from
	}
	if n <= 0 {
		return nil
	}
	out := make([][]Cell, n)
	for i := range n {
		out[i] = t.h.at(from + i).cells(t.cols)
	}
	return out
}

// guardLocked runs a vt10x call and turns a panic inside it into a reset of the
// emulator (same size, history kept) and a log line, so that no input can
// take the pane, let alone the server, down.
// The model of the screen, if any, is written into vt10x first.
func (t *Terminal) guardLocked(f func()) (ok bool) {
	if t.model != nil {
		t.materializeLocked()
	}
	return t.peekLocked(f)
}

// peekLocked is guardLocked for calls that do not depend on the screen's
// cells, cursor or pen (vt10x's modes), which the model of the screen, if
// any, leaves alone.
func (t *Terminal) peekLocked(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			t.logs = append(t.logs, fmt.Sprintf("term: emulator panic recovered, emulator reset: %v", r))
			t.newEmulatorLocked()
			ok = false
		}
	}()
	if t.vt == nil {
		t.thawLocked()
	}
	f()
	return true
}
