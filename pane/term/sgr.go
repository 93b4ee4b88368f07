package term

import "strconv"

// sgrLocked rewrites SGR into the subset vt10x understands: every parameter
// explicit, colon sub-parameters (38:2::r:g:b, 38:5:n, 4:3) turned into
// their semicolon forms, attributes vt10x cannot hold (dim, hidden, strike,
// overline, underline colour) dropped with their arguments.
func (t *Terminal) sgrLocked() {
	s := &t.sc
	if s.nparams == 0 {
		t.emitPenLocked("\x1b[0m")
		return
	}
	start := len(t.out)
	t.out = append(t.out, 0x1b, '[')
	head := len(t.out)
	add := func(v int) {
		if len(t.out) > head {
			t.out = append(t.out, ';')
		}
		t.out = strconv.AppendInt(t.out, int64(v), 10)
	}
	n := s.nparams
	for i := 0; i < n; {
		p := max(s.params[i], 0)
		j := i + 1
		for j < n && s.colon[j] {
			j++
		}
		sub := s.params[i+1 : j]
		switch {
		case p == 0, p == 1, p == 3, p == 5, p == 7, p == 22, p == 23, p == 24, p == 25, p == 27,
			p == 39, p == 49, p >= 30 && p <= 37, p >= 40 && p <= 47, p >= 90 && p <= 97, p >= 100 && p <= 107:
			add(p)
		case p == 6:
			add(5)
		case p == 4:
			if len(sub) > 0 && sub[0] == 0 {
				add(24)
			} else {
				add(4)
			}
		case p == 21:
			add(4) // double underline: shown as underline
		case p == 38 || p == 48 || p == 58:
			var c [4]int
			var k int
			if len(sub) > 0 {
				c, k = colorArgs(sub, true)
			} else {
				c, k, j = colorArgsSemicolon(s.params[:n], i+1)
			}
			if k > 0 && p != 58 {
				add(p)
				for _, v := range c[:k] {
					add(v)
				}
			}
		}
		i = j
	}
	if len(t.out) == head {
		t.out = t.out[:start]
		return
	}
	t.emitPenLocked("m")
}

// colorArgs validates a colour given as sub-parameters (5:n or
// 2:[colourspace:]r:g:b) and returns it in vt10x's form and its length, 0
// when it is invalid.
func colorArgs(sub []int, colon bool) ([4]int, int) {
	var c [4]int
	if len(sub) == 0 {
		return c, 0
	}
	switch sub[0] {
	case 5:
		if len(sub) < 2 || sub[1] < 0 || sub[1] > 255 {
			return c, 0
		}
		c[0], c[1] = 5, sub[1]
		return c, 2
	case 2:
		rgb := sub[1:]
		if colon && len(rgb) >= 4 {
			rgb = rgb[1:4] // skip the colour space id
		}
		if len(rgb) < 3 {
			return c, 0
		}
		r, g, b := max(rgb[0], 0), max(rgb[1], 0), max(rgb[2], 0)
		if r > 255 || g > 255 || b > 255 {
			return c, 0
		}
		if r == 0 && g == 0 {
			// vt10x stores rgb(0,0,b) as palette index b; one step of
			// green keeps it a truecolour value.
			g = 1
		}
		c = [4]int{2, r, g, b}
		return c, 4
	}
	return c, 0
}

// colorArgsSemicolon reads 5;n or 2;r;g;b from params starting at i and
// returns the colour, its length and the index after it.
func colorArgsSemicolon(params []int, i int) ([4]int, int, int) {
	if i >= len(params) {
		return [4]int{}, 0, i
	}
	switch params[i] {
	case 5:
		end := min(i+2, len(params))
		c, k := colorArgs(params[i:end], false)
		return c, k, end
	case 2:
		end := min(i+4, len(params))
		c, k := colorArgs(params[i:end], false)
		return c, k, end
	}
	return [4]int{}, 0, i + 1
}
