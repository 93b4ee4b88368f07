package proto

import "strings"

// switchPrefix begins the exit reason a server gives a client whose person
// chose another session (C-b s): the client attaches there instead of
// leaving. A client that does not know it prints the reason and leaves.
const switchPrefix = "switch to session "

// SwitchReason is the exit reason that sends an attached client to session name.
func SwitchReason(name string) string { return switchPrefix + name }

// SwitchTarget is the session an exit reason sends the client to, if it is
// a switch (SwitchReason).
func SwitchTarget(reason string) (string, bool) {
	name, ok := strings.CutPrefix(reason, switchPrefix)
	return name, ok && name != ""
}
