// Package audit keeps the record of every permission question melmux
// answered, or saw answered, for a coding agent: which pane and agent,
// the tool and its input, what was decided and by whom (a policy rule, a
// lead's answer or send_keys, a person's keys, a hook). The agents run
// commands on a person's behalf, so what let each one run must be
// readable afterwards.
//
// The log is one file of JSON lines, $XDG_STATE_HOME/melmux/audit.jsonl
// (Path), shared by every session of the user. Each line is one Entry,
// written with a single write(2) to a file opened O_APPEND, so that the
// lines of several sessions' daemons (and of a CLI) never interleave: on
// a local file system the kernel appends each write whole (NFS does not
// promise it). The log is the user's alone: the file is kept at mode 0600
// and its directory is made 0700, since commands and questions can hold
// secrets. A file with a looser mode is tightened, not refused (Log).
//
// The package uses the standard library only, so that any melmux binary
// can write the log without linking more.
package audit
