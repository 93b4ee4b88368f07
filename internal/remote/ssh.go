package remote

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ssh's ConnectTimeout: a first connection (a pane's, bootstrap's, a
// check's) waits as long as a slow host or jump host may need; a
// reconnection gives up sooner, so that a try begun while the network was
// down does not hold up the one that finds it back. A ConnectTimeout the
// user's configuration gives the host is used for both instead.
const (
	firstConnectTimeout     = 15 * time.Second
	reconnectConnectTimeout = 5 * time.Second
)

// connectTimeout is ssh's ConnectTimeout for a first connection to dest
// or a reconnection.
func connectTimeout(ctx context.Context, ssh []string, dest string, first bool) time.Duration {
	if t := configuredTimeout(ctx, ssh, dest); t > 0 {
		return t
	}
	if first {
		return firstConnectTimeout
	}
	return reconnectConnectTimeout
}

// configured holds what `ssh -G` said of each ssh command line and
// destination: it reads the configuration and connects nowhere, so once a
// process is enough.
var configured sync.Map // string → time.Duration

// configuredTimeout is the ConnectTimeout the user's ssh configuration
// gives dest (`ssh -G`); 0 when it gives none or ssh cannot say.
func configuredTimeout(ctx context.Context, ssh []string, dest string) time.Duration {
	key := strings.Join(ssh, "\x00") + "\x00" + dest
	if v, ok := configured.Load(key); ok {
		return v.(time.Duration)
	}
	host, port := splitDest(dest)
	args := append(append([]string{}, ssh[1:]...), "-G")
	if port != "" {
		args = append(args, "-p", port)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, ssh[0], append(args, "--", host)...).Output()
	if err != nil {
		return 0 // not stored: asked again next time
	}
	var t time.Duration
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.ToLower(line), "connecttimeout "); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				t = time.Duration(n) * time.Second
			}
		}
	}
	configured.Store(key, t)
	return t
}

// sshArgs is ssh's command line for running command on dest. The user's
// own configuration (aliases, keys, agent, jump hosts, ControlMaster)
// applies; BatchMode makes a missing key or an unknown host key fail at once,
// saying so, instead of asking in a pane whose typing goes to the host.
func sshArgs(opts []string, dest, command string, connectTimeout time.Duration) []string {
	args := append([]string{}, opts...)
	args = append(args, "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout="+strconv.Itoa(int(connectTimeout.Seconds())))
	host, port := splitDest(dest)
	if port != "" {
		args = append(args, "-p", port)
	}
	return append(args, "--", host, command)
}

// splitDest takes host:port (and [v6]:port) apart, which ssh does not; an
// alias, user@host or an ssh:// URI goes to ssh as it is.
func splitDest(dest string) (host, port string) {
	if strings.Contains(dest, "://") {
		return dest, ""
	}
	i := strings.LastIndexByte(dest, ':')
	if i < 0 {
		return dest, ""
	}
	h, p := dest[:i], dest[i+1:]
	if _, err := strconv.ParseUint(p, 10, 16); err != nil || p == "" {
		return dest, ""
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), p
	}
	if strings.Contains(h, ":") {
		return dest, "" // a bare IPv6 address
	}
	return h, p
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hostPrelude starts every command on the host: where this build of
// melmux lives there ($d), and the sessions' socket directory. A runtime
// directory under /run/user goes when the user's last login ends, which a
// dropped link may be, so the host's sessions keep theirs in /tmp instead.
func hostPrelude(id string) string {
	return `case "${XDG_RUNTIME_DIR:-}" in /run/user/*) unset XDG_RUNTIME_DIR;; esac; ` +
		`d="${XDG_DATA_HOME:-$HOME/.local/share}/melmux/bin/` + id + `"; `
}

// hostCommand runs melmux with args on the host, under sh whatever the
// user's login shell (which ssh hands the command to).
func hostCommand(dir string, args []string) string {
	var b strings.Builder
	b.WriteString(dir)
	b.WriteString(`exec "$d/melmux"`)
	for _, a := range args {
		b.WriteString(" ")
		b.WriteString(shQuote(a))
	}
	return "sh -c " + shQuote(b.String())
}
