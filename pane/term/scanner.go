package term

import (
	"unicode/utf8"
)

// Scanner states, after the DEC/ECMA-48 parser model (vt100.net/emu/dec_ansi_parser)
// reduced to what a UTF-8 terminal needs.
const (
	stGround    = iota
	stEsc       // after ESC
	stEscInter  // ESC followed by intermediates (0x20-0x2F)
	stCSI       // parameters, intermediates and the final byte of a CSI
	stCSIIgnore // a malformed CSI, consumed up to its final byte
	stOSC       // OSC string
	stOSCEsc    // ESC inside an OSC string (ST or a new sequence)
	stStr       // DCS, APC, PM, SOS or screen's ESC k: consumed, ignored
	stStrEsc    // ESC inside such a string
)

const (
	maxParams = 32
	// maxParam is the largest parameter accepted, as tmux: a larger one makes
	// the whole sequence invalid and it is dropped.
	maxParam = 1<<31 - 1
	// maxOSC caps an OSC string (titles are the only OSC kept). A longer
	// string is still consumed to its terminator but then ignored.
	maxOSC = 4096
)

// scanner is the byte-level state of the conditioning parser. It survives
// between writes, so that sequences and UTF-8 runes split across reads are
// put together again.
type scanner struct {
	state int

	utf  [utf8.UTFMax]byte // bytes of an incomplete rune
	nutf int

	// CSI being parsed.
	prefix   byte // one of < = > ? or 0
	inter    [2]byte
	ninter   int
	params   [maxParams]int // -1 is a missing (empty) parameter
	colon    [maxParams]bool
	nparams  int
	cur      int64 // parameter being accumulated, -1 when no digit yet
	overflow bool

	escInter byte // the intermediate after ESC (for ESC ( 0 and the like)

	osc         []byte
	oscOverflow bool
}

func (s *scanner) reset() {
	s.state = stGround
	s.nutf = 0
	s.osc = s.osc[:0]
	s.oscOverflow = false
}

func (s *scanner) csiStart() {
	s.state = stCSI
	s.prefix = 0
	s.ninter = 0
	s.nparams = 0
	s.cur = -1
	s.overflow = false
}

// scanLocked runs the state machine over at most limit bytes of all,
// emitting normalised bytes to t.out and acting on what this package handles
// itself, and returns how many bytes it consumed. The scroll-off fast path
// may look at, and consume, all of all.
func (t *Terminal) scanLocked(all []byte, limit int) int {
	// A long stretch the model of the screen handles (fast.go) goes around
	// the scanner and vt10x.
	if end, ok := t.modelLocked(all, 0); ok {
		return end
	}
	p := all[:min(limit, len(all))]
	s := &t.sc
	i := 0
	// Finish a rune split by the previous write.
	for s.nutf > 0 && i < len(p) {
		b := p[i]
		if b&0xC0 != 0x80 {
			// Not a continuation: the partial rune was invalid and is
			// dropped, as tmux drops invalid UTF-8.
			s.nutf = 0
			break
		}
		s.utf[s.nutf] = b
		s.nutf++
		i++
		if utf8.FullRune(s.utf[:s.nutf]) {
			r, size := utf8.DecodeRune(s.utf[:s.nutf])
			s.nutf = 0
			if r != utf8.RuneError || size > 1 {
				t.textRuneLocked(r)
			}
		}
	}
	for i < len(p) {
		b := p[i]
		switch s.state {
		case stGround:
			if (t.model != nil || t.resume) && i >= t.noFast {
				// The model goes on after what the scanner took, or starts
				// again after what made the scanner write it into vt10x.
				if end, ok := t.modelLocked(all, i); ok {
					return end
				}
			}
			if b >= 0x20 && b < 0x7f {
				// A run of ASCII text: the common case, kept tight.
				j := i + 1
				for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
					j++
				}
				t.printASCIILocked(p[i:j])
				i = j
				continue
			}
			if b < 0x20 || b == 0x7f {
				t.controlLocked(b)
				i++
				continue
			}
			// Non-ASCII: decode, carrying an incomplete rune to the next write.
			if !utf8.FullRune(p[i:]) {
				s.nutf = copy(s.utf[:], p[i:])
				return len(p)
			}
			r, size := utf8.DecodeRune(p[i:])
			if r != utf8.RuneError || size > 1 {
				t.textRuneLocked(r)
			}
			i += size
			continue
		case stEsc:
			if b >= 0x80 {
				// Not an escape sequence: the ESC is cancelled and the byte,
				// which begins a character, dropped.
				s.state = stGround
				break
			}
			t.escByteLocked(b)
		case stEscInter:
			switch {
			case b < 0x20:
				t.controlInSeqLocked(b)
			case b < 0x30:
				// Further intermediates: remember only the first.
			default:
				s.state = stGround
				t.escDispatchLocked(s.escInter, b)
			}
		case stCSI:
			t.csiByteLocked(b)
		case stCSIIgnore:
			switch {
			case b < 0x20:
				t.controlInSeqLocked(b)
			case b >= 0x40 && b <= 0x7e:
				s.state = stGround
			}
		case stOSC:
			switch b {
			case 0x07:
				t.oscDispatchLocked()
				s.state = stGround
			case 0x1b:
				s.state = stOSCEsc
			case 0x18, 0x1a:
				s.state = stGround
			default:
				if len(s.osc) < maxOSC {
					s.osc = append(s.osc, b)
				} else {
					s.oscOverflow = true
				}
			}
		case stOSCEsc:
			t.oscDispatchLocked()
			s.state = stGround
			if b != '\\' {
				s.state = stEsc
				continue // reprocess b as the byte after ESC
			}
		case stStr:
			switch b {
			case 0x1b:
				s.state = stStrEsc
			case 0x18, 0x1a:
				s.state = stGround
			}
		case stStrEsc:
			// ESC followed by anything but ST stays inside the string, as
			// tmux does for DCS passthrough.
			switch b {
			case '\\':
				s.state = stGround
			case 0x1b:
			default:
				s.state = stStr
			}
		}
		i++
	}
	return len(p)
}

// controlInSeqLocked executes a C0 control met inside an escape sequence, as
// the DEC parser does; ESC restarts, CAN and SUB abort.
func (t *Terminal) controlInSeqLocked(b byte) {
	switch b {
	case 0x1b:
		t.sc.state = stEsc
	case 0x18, 0x1a:
		t.sc.state = stGround
	default:
		t.controlLocked(b)
	}
}

func (t *Terminal) escByteLocked(b byte) {
	s := &t.sc
	switch {
	case b == '[':
		s.csiStart()
	case b == ']':
		s.state = stOSC
		s.osc = s.osc[:0]
		s.oscOverflow = false
	case b == 'P' || b == '_' || b == '^' || b == 'X' || b == 'k':
		s.state = stStr
	case b < 0x20:
		t.controlInSeqLocked(b)
	case b < 0x30:
		s.escInter = b
		s.state = stEscInter
	case b == 0x7f:
		// DEL is ignored everywhere.
	default:
		s.state = stGround
		t.escDispatchLocked(0, b)
	}
}

func (t *Terminal) csiByteLocked(b byte) {
	s := &t.sc
	switch {
	case b >= '0' && b <= '9':
		if s.ninter > 0 {
			s.state = stCSIIgnore
			return
		}
		if s.cur < 0 {
			s.cur = 0
		}
		if s.cur <= maxParam {
			s.cur = s.cur*10 + int64(b-'0')
		}
		if s.cur > maxParam {
			s.overflow = true
		}
	case b == ';' || b == ':':
		if s.ninter > 0 {
			s.state = stCSIIgnore
			return
		}
		s.pushParam()
		if s.nparams < maxParams {
			s.colon[s.nparams] = b == ':'
		}
	case b >= '<' && b <= '?':
		if s.ninter > 0 || s.nparams > 0 || s.cur >= 0 || s.prefix != 0 {
			s.state = stCSIIgnore
			return
		}
		s.prefix = b
	case b >= 0x20 && b <= 0x2f:
		if s.ninter >= len(s.inter) {
			s.state = stCSIIgnore
			return
		}
		s.inter[s.ninter] = b
		s.ninter++
	case b >= 0x40 && b <= 0x7e:
		s.state = stGround
		if s.cur >= 0 || s.nparams > 0 {
			s.pushParam()
		}
		if s.overflow {
			return
		}
		t.csiDispatchLocked(b)
	case b < 0x20:
		t.controlInSeqLocked(b)
	default:
		// DEL and bytes above 0x7e inside a CSI are ignored.
	}
}

// pushParam ends the parameter being accumulated. Parameters beyond
// maxParams are dropped, as no sequence this package forwards uses them.
func (s *scanner) pushParam() {
	if s.nparams < maxParams {
		s.params[s.nparams] = int(s.cur)
		if s.nparams == 0 {
			s.colon[0] = false
		}
		s.nparams++
	}
	s.cur = -1
}

// param returns parameter i, or def when it is missing or zero-as-default.
func (s *scanner) param(i, def int) int {
	if i >= s.nparams || s.params[i] < 0 {
		return def
	}
	return s.params[i]
}
