package ui

import "encoding/base64"

// OSC52 returns the escape sequence that asks the client's terminal to put
// text on the system clipboard: ESC ] 52 ; c ; base64 BEL.
func OSC52(text string) []byte {
	enc := base64.StdEncoding
	out := make([]byte, 0, 8+enc.EncodedLen(len(text)))
	out = append(out, "\x1b]52;c;"...)
	out = enc.AppendEncode(out, []byte(text))
	return append(out, '\a')
}
