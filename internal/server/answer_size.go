package server

import (
	"unicode/utf8"
)

// jsonLen is the length of s encoded as a JSON string by encoding/json
// (HTML characters escaped, as json.Marshal does), quotes included: what
// a line of text adds to an answer, known before the answer is built.
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t' || b == '\b' || b == '\f':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// linesJSONLen is the length of lines encoded as a JSON array of strings.
func linesJSONLen(lines []string) int {
	n := 2
	for i, l := range lines {
		if i > 0 {
			n++
		}
		n += jsonLen(l)
	}
	return n
}

// lastThatFit is how many of the last lines fit in budget bytes of JSON.
func lastThatFit(lines []string, budget int) int {
	used := 2
	for k := len(lines) - 1; k >= 0; k-- {
		used += jsonLen(lines[k]) + 1
		if used > budget {
			return len(lines) - 1 - k
		}
	}
	return len(lines)
}
