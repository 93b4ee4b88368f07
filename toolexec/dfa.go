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
	keyBuf  []byte
	resets  int
	maxSize int
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

// dfaMaxStates bounds the state cache (each state holds a 1 KB table); when
// full it is emptied and rebuilt as input needs it.
const dfaMaxStates = 2048

func newLineDFA(prog *syntax.Prog) *lineDFA {
	d := &lineDFA{prog: prog, seen: make([]uint32, len(prog.Inst)), maxSize: dfaMaxStates}
	d.reset()
	return d
}

func (d *lineDFA) reset() {
	d.states = make(map[string]*dstate)
	d.start = d.intern([]uint32{uint32(d.prog.Start)}, prevStart)
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
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.seen[pc] == d.gen {
			continue
		}
		d.seen[pc] = d.gen
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

// step computes the transition from s on r.
func (d *lineDFA) step(s *dstate, r rune) *dstate {
	if d.closure(s.pcs, emptyContext(s.prev, r)) {
		return matchState
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
	prev := prevOther
	if syntax.IsWordChar(r) {
		prev = prevWord
	}
	if len(d.states) >= d.maxSize {
		// Old states stay valid for whoever holds them; only the cache
		// starts over.
		d.resets++
		d.reset()
	}
	return d.intern(next, prev)
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
	b := buf[i]
	if b < utf8.RuneSelf {
		ns := s.next[b]
		if ns == unknownState {
			ns = d.step(s, rune(b))
			s.next[b] = ns
		}
		return ns, i + 1
	}
	r, size := utf8.DecodeRune(buf[i:])
	ns := s.wide[r]
	if ns == nil {
		ns = d.step(s, r)
		if s.wide == nil {
			s.wide = make(map[rune]*dstate)
		}
		s.wide[r] = ns
	}
	return ns, i + size
}

// matchLine reports whether line (without its newline) matches.
func (d *lineDFA) matchLine(line []byte) bool {
	s := d.start
	for i := 0; i < len(line); {
		s, i = d.transition(s, line, i)
		if s == matchState {
			return true
		}
	}
	return d.endMatches(s)
}

// scan appends every matching line of buf to out.
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
		if ns, i = d.transition(s, buf, i); ns != matchState {
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
