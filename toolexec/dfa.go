package toolexec

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA answers "does this line match?" for an RE2 program with one table
// lookup per byte, building its states lazily from the program as input
// needs them (the approach of RE2's DFA, written for this one question).
// Go's regexp package simulates the NFA for every byte, which is several
// times slower on patterns with no literal to search for first.
//
// A state is the set of program positions still alive (before their
// empty-width closure is taken) plus the class of the previous rune. The
// closure is taken when the next rune is known, because the empty-width
// assertions (^ $ \b \B) depend on both neighbours. Every state also holds
// the program start, so a match may begin at any position of the line.
//
// A lineDFA is not safe for concurrent use: each grep worker has its own.
type lineDFA struct {
	prog   *syntax.Prog
	states map[string]*dstate
	start  *dstate
	// scratch for closures
	stack   []uint32
	seen    []uint32 // seen[pc] == gen when pc was visited in this closure
	gen     uint32
	runes   []uint32 // rune-consuming pcs found by the last closure
	next    []uint32
	slow    []uint32 // matchSlow's positions
	keyBuf  []byte
	resets  int
	maxSize int // states in the cache
	// The cache is bounded in bytes too: a state's pcs can number as many
	// as the program's instructions.
	bytes, maxBytes int

	// work is the search's shared budget (nil: unbounded); pending is the
	// work done since it was last charged.
	work    *grepWork
	pending int64
	// A cache that empties again after fewer than dfaMinBytesPerState
	// bytes per state it held is thrashing (RE2's rule): building a state
	// every few bytes costs far more than stepping the positions without
	// states, so the scan gives up (bailed) and the lines are matched with
	// matchSlow instead. pos is the
	// buffer offset of the last slow step (lineBase is that of the line
	// matchLine is given), resetPos that of the last reset, -1 for none
	// since beginScan.
	pos, lineBase, resetPos int
	bailed                  bool
	// stopped is set when the budget is spent or the search's context has
	// ended: every scan then stops at once.
	stopped bool
}

type dstate struct {
	// next holds the transition on each byte. Bytes that need more than a
	// table lookup lead to the sentinels: unknownState (not computed yet),
	// newlineState ('\n' ends the line) and wideState (a multi-byte rune,
	// looked up in wide); matchState means the line matches.
	next [256]*dstate
	pcs  []uint32
	wide map[rune]*dstate // transitions on non-ASCII runes
	prev uint8            // class of the rune before: prevStart, prevWord or prevOther
	end  int8             // 0 unknown, 1 a match completes at the end of the line, -1 not
	// special marks the sentinels, so the scan loop tests one byte of the
	// state it just loaded instead of comparing pointers.
	special uint8
}

const (
	prevStart uint8 = iota
	prevWord
	prevOther
)

// Sentinel states; see dstate.next.
var (
	matchState   = &dstate{special: 1}
	unknownState = &dstate{special: 2}
	newlineState = &dstate{special: 3}
	wideState    = &dstate{special: 4}
)

// blankNext is the transition table of a new state.
var blankNext = func() (t [256]*dstate) {
	for b := range t {
		switch {
		case b == '\n':
			t[b] = newlineState
		case b >= utf8.RuneSelf:
			t[b] = wideState
		default:
			t[b] = unknownState
		}
	}
	return t
}()

// dfaMaxStates and dfaMaxBytes bound the state cache (each state holds a
// 2 KB table and its pcs); when full it is emptied and rebuilt as input
// needs it.
const (
	dfaMaxStates = 2048
	dfaMaxBytes  = 8 << 20
	// dfaMinBytesPerState: see lineDFA.resetPos.
	dfaMinBytesPerState = 10
	// stateOverhead is a state's size besides its pcs and key: the table,
	// the struct, the map entry.
	stateOverhead = 256*8 + 128
)

func newLineDFA(prog *syntax.Prog) *lineDFA {
	d := &lineDFA{prog: prog, seen: make([]uint32, len(prog.Inst)), maxSize: dfaMaxStates, maxBytes: dfaMaxBytes}
	d.reset()
	return d
}

func (d *lineDFA) reset() {
	d.states = make(map[string]*dstate)
	d.bytes = 0
	d.start = d.intern([]uint32{uint32(d.prog.Start)}, prevStart)
}

// bailState is returned by step when the scan gives up (bailed or stopped).
var bailState = &dstate{special: 5}

// beginScan starts the thrash watch over for a new buffer.
func (d *lineDFA) beginScan() {
	d.pos, d.lineBase, d.resetPos = 0, 0, -1
	d.bailed = false
}

// charge adds n units of matching work, charging the shared budget in
// batches; it reports false once the search must stop.
func (d *lineDFA) charge(n int64) bool {
	if d.work == nil {
		return true
	}
	d.pending += n
	if d.pending >= workBatch {
		if !d.work.spend(d.pending) {
			d.stopped = true
		}
		d.pending = 0
	}
	return !d.stopped
}

func (d *lineDFA) intern(pcs []uint32, prev uint8) *dstate {
	slices.Sort(pcs)
	pcs = slices.Compact(pcs)
	key := d.keyBuf[:0]
	key = append(key, prev)
	for _, pc := range pcs {
		key = binary.AppendUvarint(key, uint64(pc))
	}
	d.keyBuf = key
	if s, ok := d.states[string(key)]; ok {
		return s
	}
	s := &dstate{next: blankNext, pcs: append([]uint32(nil), pcs...), prev: prev}
	d.states[string(key)] = s
	d.bytes += stateOverhead + 4*len(pcs) + len(key)
	return s
}

// closure follows the empty transitions from pcs under the assertions in
// flags, leaving the rune-consuming positions in d.runes. It reports whether
// a match instruction was reached.
func (d *lineDFA) closure(pcs []uint32, flags syntax.EmptyOp) bool {
	d.gen++
	if d.gen == 0 { // wrapped: clear the marks
		clear(d.seen)
		d.gen = 1
	}
	d.runes = d.runes[:0]
	matched := false
	stack := append(d.stack[:0], pcs...)
	visited := int64(0)
	defer func() { d.charge(visited) }()
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.seen[pc] == d.gen {
			continue
		}
		d.seen[pc] = d.gen
		visited++
		inst := &d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, inst.Arg, inst.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^flags == 0 {
				stack = append(stack, inst.Out)
			}
		case syntax.InstMatch:
			matched = true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.runes = append(d.runes, pc)
		}
	}
	d.stack = stack
	return matched
}

// context gives the empty-width assertions true between a rune of class
// prev and r (r < 0 at the end of the line).
func emptyContext(prev uint8, r rune) syntax.EmptyOp {
	var op syntax.EmptyOp
	if prev == prevStart {
		op |= syntax.EmptyBeginText | syntax.EmptyBeginLine
	}
	if r < 0 {
		op |= syntax.EmptyEndText | syntax.EmptyEndLine
	}
	if (prev == prevWord) != (r >= 0 && syntax.IsWordChar(r)) {
		op |= syntax.EmptyWordBoundary
	} else {
		op |= syntax.EmptyNoWordBoundary
	}
	return op
}

// step computes the transition from s on r, or bailState when the scan
// must give up.
func (d *lineDFA) step(s *dstate, r rune) *dstate {
	if d.stopped || d.bailed {
		return bailState
	}
	next, prev, matched := d.advance(s.pcs, s.prev, r)
	if matched {
		return matchState
	}
	if d.stopped {
		return bailState
	}
	if len(d.states) >= d.maxSize || d.bytes >= d.maxBytes {
		d.resets++
		if d.resetPos >= 0 && d.pos-d.resetPos < dfaMinBytesPerState*len(d.states) {
			d.bailed = true
			return bailState
		}
		d.resetPos = d.pos
		// Old states stay valid for whoever holds them; only the cache
		// starts over.
		d.reset()
	}
	return d.intern(next, prev)
}

// advance moves the set of positions pcs, after a rune of class prev, over
// r: it reports a match completed before r, or returns the positions alive
// after r (in d.next, reused by the next call) and r's class.
func (d *lineDFA) advance(pcs []uint32, prev uint8, r rune) ([]uint32, uint8, bool) {
	if d.closure(pcs, emptyContext(prev, r)) {
		return nil, 0, true
	}
	next := d.next[:0]
	for _, pc := range d.runes {
		inst := &d.prog.Inst[pc]
		var ok bool
		switch inst.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		default:
			ok = inst.MatchRune(r)
		}
		if ok {
			next = append(next, inst.Out)
		}
	}
	next = append(next, uint32(d.prog.Start))
	d.next = next
	if syntax.IsWordChar(r) {
		return next, prevWord, false
	}
	return next, prevOther, false
}

func (d *lineDFA) endMatches(s *dstate) bool {
	if s.end == 0 {
		s.end = -1
		if d.closure(s.pcs, emptyContext(s.prev, -1)) {
			s.end = 1
		}
	}
	return s.end > 0
}

// transition follows s on the rune at buf[i], which is not '\n', returning
// the next state (never a sentinel other than matchState) and the index
// after the rune.
func (d *lineDFA) transition(s *dstate, buf []byte, i int) (*dstate, int) {
	d.pos = d.lineBase + i
	b := buf[i]
	if b < utf8.RuneSelf {
		ns := s.next[b]
		if ns == unknownState {
			ns = d.step(s, rune(b))
			if ns != bailState {
				s.next[b] = ns
			}
		}
		return ns, i + 1
	}
	r, size := utf8.DecodeRune(buf[i:])
	ns := s.wide[r]
	if ns == nil {
		ns = d.step(s, r)
		if ns == bailState {
			return ns, i + size
		}
		if s.wide == nil {
			s.wide = make(map[rune]*dstate)
		}
		s.wide[r] = ns
		d.bytes += 32
	}
	return ns, i + size
}

// matchLine reports whether line (without its newline) matches; once the
// DFA has given up on the buffer, matchSlow decides. A stopped search
// matches nothing.
func (d *lineDFA) matchLine(line []byte) bool {
	if d.bailed {
		return d.matchSlow(line)
	}
	s := d.start
	for i := 0; i < len(line); {
		s, i = d.transition(s, line, i)
		switch s {
		case matchState:
			return true
		case bailState:
			return d.matchSlow(line)
		}
	}
	return d.endMatches(s)
}

// matchSlow matches a line by simulating the automaton without building
// states (an NFA simulation, RE2's fallback): the work per byte is the
// number of positions alive, and every step is charged to the budget.
func (d *lineDFA) matchSlow(line []byte) bool {
	pcs := append(d.slow[:0], uint32(d.prog.Start))
	prev := prevStart
	for i := 0; i < len(line) && !d.stopped; {
		r, size := rune(line[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(line[i:])
		}
		next, class, matched := d.advance(pcs, prev, r)
		if matched {
			return true
		}
		pcs, prev = append(pcs[:0], next...), class
		i += size
	}
	d.slow = pcs
	return !d.stopped && d.closure(pcs, emptyContext(prev, -1))
}

// scan appends every matching line of buf to out. When the DFA gives up it
// finishes with matchSlow line by line, from the line it gave up in.
func (d *lineDFA) scan(buf []byte, out []lineSpan) []lineSpan {
	s := d.start
	lineNo, lineStart := 1, 0
	for i := 0; i < len(buf); {
		// The hot path: one load and one test per byte.
		ns := s.next[buf[i]]
		if ns.special == 0 {
			s = ns
			i++
			continue
		}
		if ns == newlineState {
			if d.endMatches(s) {
				out = append(out, lineSpan{no: lineNo, start: lineStart, end: i})
			}
			i++
			lineNo, lineStart, s = lineNo+1, i, d.start
			continue
		}
		if ns, i = d.transition(s, buf, i); ns == bailState {
			return d.scanSlow(buf, lineStart, lineNo, out)
		} else if ns != matchState {
			s = ns
			continue
		}
		end := bytes.IndexByte(buf[i:], '\n')
		if end < 0 {
			return append(out, lineSpan{no: lineNo, start: lineStart, end: len(buf)})
		}
		end += i
		out = append(out, lineSpan{no: lineNo, start: lineStart, end: end})
		i = end + 1
		lineNo, lineStart, s = lineNo+1, i, d.start
	}
	if lineStart < len(buf) && d.endMatches(s) {
		out = append(out, lineSpan{no: lineNo, start: lineStart, end: len(buf)})
	}
	return out
}

// scanSlow is scan with matchSlow, from offset start, which begins line
// lineNo.
func (d *lineDFA) scanSlow(buf []byte, start, lineNo int, out []lineSpan) []lineSpan {
	for start < len(buf) && !d.stopped {
		end := bytes.IndexByte(buf[start:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += start
		}
		if d.matchSlow(buf[start:end]) {
			out = append(out, lineSpan{no: lineNo, start: start, end: end})
		}
		start, lineNo = end+1, lineNo+1
	}
	return out
}
