// Package keys turns send_keys text, written in the vim key notation
// docs/cli.md gives ("Keys in TEXT"), into the bytes a terminal would send
// for those keys.
//
// Text is typed as is (UTF-8, bytes passed through); a newline is the Enter
// key (CR), and CRLF counts as one newline. Names in angle brackets are keys,
// matched without regard to case as vim does: <Enter> <CR> <Return> <Tab>
// <Esc> <BS> <Space> <Up> <Down> <Left> <Right> <Home> <End> <PgUp> <PgDn>
// <PageUp> <PageDown> <Del> <Ins> <F1>..<F12> <NL> <Nul>, the keypad keys
// <k0>..<k9> <kPlus> <kMinus> <kMultiply> <kDivide> <kPoint> <kComma>
// <kEqual> <kEnter>, and any of them or a single character behind modifiers
// C- (control), M- or A- (meta/alt: an ESC prefix) and S- (shift), in any
// order: <C-x>, <M-x>, <C-M-x>, <S-Tab>, <C-Left>, <M-Enter>. <lt> is a
// literal "<", <Bar> "|" and <Bslash> "\"; a "<...>" that names no key, and a
// "<" with no ">", is typed literally.
//
// The bytes follow what tmux 3.3a sends into a pane whose TERM is
// screen-256color (the pane's TERM), checked against tmux itself in the tests:
// cursor keys are ESC [ A or, in application cursor mode, ESC O A; Home and
// End are ESC [1~ and ESC [4~ in both modes, as that terminfo's khome and kend
// say; F1-F4 are SS3 P-S; modified cursor, editing and function keys use
// xterm's "CSI code ; 1+mods" form; BS sends DEL (0x7f). Where tmux 3.3a sends
// nothing or something odd, xterm decides: <C-BS> is ^H, <C-Tab> is a tab,
// <C-Enter> and <S-Enter> are CR, <kEnter> outside application keypad mode is
// CR (tmux sends LF), <C-3>..<C-8> are ESC, FS, GS, RS, US and DEL; control
// with a character that has no control code sends the character.
//
// Multi-line text goes to a program that enabled bracketed paste as one
// paste: a run of text between key names whose lines continue past a newline
// is wrapped in ESC [200~ ... ESC [201~ with each newline sent as CR inside
// (what tmux's paste-buffer and xterm send), so the program receives the
// lines as text and runs nothing. One final newline of such a run stays
// outside the paste as the Enter key, so "ls\n" is a command and Enter, and
// "a\nb\n" is the paste "a\rb" then Enter. Any paste start or end marker
// inside the text is removed, so text cannot end the paste early and have the
// rest run as typed keys (paste injection). Without bracketed paste every
// newline is simply Enter.
package keys
