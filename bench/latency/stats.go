package main

import (
	"errors"
	"fmt"
	"sort"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// ErrTooManyKeys means a run asked for more distinct keys than the marker
// alphabet holds.
var ErrTooManyKeys = errors.New("more keys than distinct markers")

// markerRanges are the blocks keys are drawn from: letters of two UTF-8 bytes
// that terminals draw one cell wide and that neither multiplexer uses for
// anything it draws itself.
var markerRanges = [][2]rune{
	{0x0100, 0x024F}, // Latin Extended-A and -B
	{0x0391, 0x03C9}, // Greek capitals and small letters
	{0x0400, 0x0481}, // Cyrillic before the combining marks at U+0483
	{0x048A, 0x04FF}, // the rest of Cyrillic
}

// markers returns n distinct one-cell letters, each two bytes in UTF-8.
func markers(n int) ([]string, error) {
	out := make([]string, 0, n)
	for _, r := range markerRanges {
		for c := r[0]; c <= r[1] && len(out) < n; c++ {
			if !unicode.IsLetter(c) || runewidth.RuneWidth(c) != 1 || utf8.RuneLen(c) != 2 {
				continue
			}
			out = append(out, string(c))
		}
	}
	if len(out) < n {
		return nil, fmt.Errorf("%w: asked for %d, the alphabet has %d (lower -n or -warmup)", ErrTooManyKeys, n, len(out))
	}
	return out, nil
}

// summary is what a table row shows for one set of latencies.
type summary struct {
	N                       int
	Lost                    int
	P50, P90, P99, Max, Avg time.Duration
}

// summarize sorts a copy of d and takes nearest-rank percentiles, the
// definition that never reports a value no key had.
func summarize(d []time.Duration, lost int) summary {
	s := summary{N: len(d), Lost: lost}
	if len(d) == 0 {
		return s
	}
	c := append([]time.Duration(nil), d...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	var sum time.Duration
	for _, v := range c {
		sum += v
	}
	s.P50, s.P90, s.P99 = rank(c, 50), rank(c, 90), rank(c, 99)
	s.Max = c[len(c)-1]
	s.Avg = sum / time.Duration(len(c))
	return s
}

// rank is the nearest-rank p-th percentile of sorted values.
func rank(sorted []time.Duration, p int) time.Duration {
	i := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	if i < 1 {
		i = 1
	}
	return sorted[i-1]
}

// ms formats a duration in milliseconds with one decimal, as the tables do.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

// ratio is a/b with two decimals, or "n/a" when b is zero.
func ratio(a, b time.Duration) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
