// Package term is a pane's terminal emulator: a conditioning scanner in front
// of hinshun/vt10x, plus the pane's scrollback.
//
// vt10x holds the cells, but mishandles much of what programs send (see
// /work/shared/research/vt10x.md), so it never sees the raw stream. The
// scanner is a DEC-style state machine over bytes that survives between
// writes (a rune or sequence split across reads is put together again). It
// forwards to vt10x only normalised sequences it is known to handle, with
// every parameter explicit and clamped; it drops what vt10x would get wrong
// (>, = and < prefixed CSIs, kitty keyboard queries, colon SGR after rewriting
// it, leaving an alternate screen one is not on, CHT, which tmux 3.3a ignores
// too) and implements itself what vt10x lacks: device replies (DA1, DA2, DSR,
// CPR), bracketed paste, synchronized output, cursor shape, full OSC 0/2
// titles, the bell count, REP, insert mode, the whole-screen clear after RIS,
// and tmux's rules for backspace and tab at the line end.
//
// Text placement is decided here too. The scanner follows the cursor between
// flushes to vt10x, so plain text costs one append per byte. Where a line
// scrolls off the top of the scroll region on the primary screen (line feed,
// IND, NEL or an auto-wrap on the region's bottom row, SU) or is cleared by
// tmux's scroll-on-clear (ED 2, ED 0 from home, RIS), it flushes, reads the
// row back and saves it to history. Like tmux 3.3a, and unlike xterm, a
// region that does not cover the whole screen feeds history too. A wide
// character is written as its rune plus a private-use continuation rune in
// the next cell (contRune); a wide character that does not fit in the last
// column wraps first, leaving that column alone, as tmux does. Combining
// marks, joiners and variation selectors join the cell before the cursor:
// the cell's content becomes an interned cluster, stored in vt10x as another
// private-use rune and decoded when cells are read; codes no cell holds any
// more are reclaimed (history keeps text, not codes), so a pane can show any
// number of distinct clusters over its life. As in tmux 3.3a, a zero
// width joiner is held and brings the next non-ASCII character into that
// cell with it, whatever that character's width, and the cell keeps the
// width of its first character (👨‍👩‍👧 takes two columns); a cell holds at
// most 21 bytes, tmux's limit. Regional indicators take one column each, so
// a flag is two cells (the drawing code puts the pair together). Widths follow
// go-runewidth with East Asian ambiguous characters narrow, which matches
// tmux under glibc's wcwidth.
//
// History is a ring of compact lines (text plus run-length styles), by
// default 10000, kept only for the primary screen. ED 3 clears it.
//
// Every vt10x call runs under recover: a panic replaces the emulator with a
// fresh one of the same size (history, title and bell count kept), is logged
// through Options.Logf and never propagates. All methods are safe for
// concurrent use; one mutex guards the scanner, vt10x and history, Write
// holds it for at most 4 KB of input at a time, and replies and log lines are
// delivered after it is released.
//
// Known limits, from vt10x: no dim, hidden or strikethrough attribute; bold
// brightens colours 0-7 when written; rgb(0,0,b) is stored as rgb(0,1,b)
// (vt10x cannot tell rgb(0,0,b) from palette colour b); resizing does not
// reflow, and a shrink while the alternate screen is shown loses the primary
// screen's top rows. A grow pulls back the lines that scrolled into history
// (tmux's hscrolled: not those a clear put there) by replaying them through
// vt10x above the screen, cursor and pen kept; a pending wrap is lost on any
// resize, and the last pulled line loses its wrap onto the row below it.
// Known differences from tmux 3.3a: scroll-on-clear
// counts a row as used when it shows something, where tmux also counts a row
// on which only spaces were written; after ESC followed by a non-ASCII
// character tmux also swallows the next character. Everything in
// testdata/corpus agrees row for row (TestAgreementWithTmux), and so do
// shrinks and grows (TestResizeAgreesWithTmux).
package term
