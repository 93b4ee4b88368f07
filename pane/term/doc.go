// Package term is a pane's terminal emulator: a conditioning scanner in front
// of hinshun/vt10x, plus the pane's scrollback.
//
// vt10x (github.com/hinshun/vt10x, the pinned version in go.mod) holds the
// cells, but mishandles much of what programs send, so it never sees the raw
// stream. What this package relies on, measured on that version:
//
//   - It keeps no scrollback: a line scrolled off the top is cleared and
//     reused, so the scanner saves it first.
//   - Its getters (Cell, Cursor, Mode) neither lock nor check bounds, and
//     Write and Resize lock by themselves; this package serialises them all
//     under its own mutex and never calls String (which would deadlock under
//     Lock).
//   - Glyph mode bits and cursor state bits are unexported; their values are
//     mirrored here (dispatch.go, snapshot.go). A stored glyph has reverse
//     video already applied (colours swapped) and bold already brightening
//     colours 0-7; a cleared cell holds the pen as it is.
//   - Parsing costs about a microsecond per rune whatever the rune does
//     (an unconditional debug call allocates twice per rune), so the fast
//     paths below keep runes away from it.
//   - It misparses much: colon SGR, empty CSI parameters (a missing one ends
//     the list), prefixed CSIs (\e[>4;2m resets attributes, \e[?u restores
//     the cursor), negative or huge counts (ICH/DCH panic, CHT loops holding
//     its lock), leaving an alternate screen one is not on, RIS (clears only
//     part of the screen), CSIs longer than 256 bytes (cut there); it has no
//     REP, insert mode, wide or combining characters, device replies, and
//     keeps the tab stops of the old width when widened. A panic in Write
//     leaves its lock released.
//
// The scanner is a DEC-style state machine over bytes that survives between
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
// default 10000, kept only for the primary screen. ED 3 clears it. When a
// pane goes quiet (Trim) its older lines are deflated out of the ring and
// decoded again only when read (history.freeze, history.thaw). A
// terminal whose output has gone quiet, its program ended or waiting, can
// be retired (Retire, retire.go): vt10x's whole state (both screens, the
// cursor with its pen and pending wrap, the saved cursor, the region, the
// tab stops, the modes) is kept packed, the screen as runs of one style,
// and vt10x is dropped until something needs it again (a write, a
// resize), when it is rebuilt as it was; Retire checks that in a scratch
// vt10x first and refuses a state that would not come back the same.
//
// Fast paths (fast.go) keep vt10x out of work whose result can never be
// seen, and each is checked against the plain path by fast_test.go (the
// corpus, the benchmark streams, generated and fuzzed input must leave the
// same screen, raw vt10x glyphs, history, cursor, pen and modes; the
// everyday shapes of bench/streams must agree with tmux through it too). A
// long stretch of what a model handles (text, SGR, CR, LF, BS, TAB, cursor
// movement, erasing within a line or the screen, scroll regions and what
// scrolls them, reverse index, insert and delete of lines and characters,
// saving and restoring the cursor, on either screen) is laid out on a
// model of the screen built of vt10x's own glyphs: lines scrolling off, and
// the rows tmux's scroll-on-clear saves, go straight to history (on the
// primary screen), cells
// overwritten before anyone looks never reach vt10x, a scroll moves rows
// rather than cells, reads come from the model, and vt10x is written (the
// model's final screen, once) only when something else needs it. A clear of
// a screen that already is what the clear leaves costs nothing, and neither
// does saving the blank lines such a screen scrolls into history.
//
// Every vt10x call runs under recover: a panic replaces the emulator with a
// fresh one of the same size (history, title and bell count kept), is logged
// through Options.Logf and never propagates. All methods are safe for
// concurrent use; one mutex guards the scanner, vt10x, the model of the
// screen and history; Write holds it for at most 4 KB of input that reaches
// vt10x at a time (a stretch the fast path takes, at a few hundred MB/s, may
// be a whole write), and replies and log lines are delivered after it is
// released.
//
// Known limits, from vt10x: no dim, hidden or strikethrough attribute; bold
// brightens colours 0-7 when written; rgb(0,0,b) is stored as rgb(0,1,b)
// (vt10x cannot tell rgb(0,0,b) from palette colour b); it does not reflow,
// so a change of width on the primary screen reads the screen out of it,
// lays it out with history as tmux 3.3a does (reflow.go: history and screen
// as one sequence of rows, the screen their last rows; a row vt10x marked
// wrapped takes what fits of the rows after it, a longer row is cut, the
// cursor keeps its character) and draws it in again; only the newest 2000
// rows of history are laid out again (reflowRows), older ones keep their
// layout. A row counts as wrapped as vt10x marks it: on an auto-wrap, and
// (written here) when a wide character does not fit in the last column;
// vt10x drops the mark when the last cell is written again, and keeps it
// when the next row is erased, where tmux does the other way round
// (entering the alternate screen ends the newest history line's wrap, as
// tmux's clear for it does). A grow pulls back the lines that scrolled
// into history (tmux's hscrolled: not those a clear put there) by
// replaying them through vt10x
// above the screen, cursor and pen kept; the last pulled line loses its wrap
// onto the row below it (history has it again if the line scrolls off
// unchanged, and such a line keeps its place in HistoryTotal's count). vt10x
// drops a pending wrap on resize: it is made again by printing the last cell
// again when the width stays. vt10x resizes the hidden primary screen along
// with the alternate one shown, losing rows, so the primary screen is copied
// when the alternate one is entered and, if a resize came in between, drawn
// again when the program leaves it, resized as tmux resizes it then
// (altscreen.go).
// Known differences from tmux 3.3a: scroll-on-clear
// counts a row as used when it shows something, where tmux also counts a row
// on which only spaces were written; so does a reflow (a line ending in
// spaces, or in cells erased after they were written, can take a row more
// in tmux), except on the cursor's row, which counts up to the cursor, so
// that a cursor moved past the end of its line without writing stays that
// far into the line where tmux moves it to the line's end; tmux keeps the
// columns a narrower alternate screen hides and shows them again on a grow,
// vt10x drops them; after ESC followed by a non-ASCII
// character tmux also swallows the next character. Everything in
// testdata/corpus agrees row for row (TestAgreementWithTmux), and so do
// shrinks, grows and reflows (TestResizeAgreesWithTmux,
// TestAltScreenResizeAgreesWithTmux).
package term
