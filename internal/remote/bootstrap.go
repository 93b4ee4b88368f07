package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Binaries are this melmux's executables: melmux, melmux-server, and
// melmux-agent when there is one.
type Binaries struct {
	Melmux, Server, Agent string
	// Dist holds builds for other platforms, one directory each named
	// GOOS-GOARCH with the same three binaries.
	Dist string
}

// files lists the binaries to copy for goos/goarch, by their name on the
// host; an empty list says there is no build for it.
func (b Binaries) files(goos, goarch string) map[string]string {
	if goos == runtime.GOOS && goarch == runtime.GOARCH {
		out := map[string]string{"melmux": b.Melmux, "melmux-server": b.Server}
		if b.Agent != "" {
			out["melmux-agent"] = b.Agent
		}
		return out
	}
	if b.Dist == "" {
		return nil
	}
	dir := filepath.Join(b.Dist, goos+"-"+goarch)
	out := map[string]string{}
	for _, n := range []string{"melmux", "melmux-server", "melmux-agent"} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			out[n] = filepath.Join(dir, n)
		}
	}
	if out["melmux"] == "" || out["melmux-server"] == "" {
		return nil
	}
	return out
}

// buildID names a set of binaries by their contents: a host keeps each
// build melmux brought in a directory of its own, so two versions never
// meet and one already there is never copied again.
func buildID(files map[string]string) (string, error) {
	h := sha256.New()
	for _, n := range []string{"melmux", "melmux-server", "melmux-agent"} {
		p, ok := files[n]
		if !ok {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", n)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// goPlatform maps `uname -s` and `uname -m` to Go's names.
func goPlatform(sys, machine string) (goos, goarch string) {
	goos = strings.ToLower(sys)
	switch machine {
	case "x86_64", "amd64":
		goarch = "amd64"
	case "aarch64", "arm64", "aarch64_be":
		goarch = "arm64"
	case "i386", "i486", "i586", "i686", "x86":
		goarch = "386"
	case "armv5l", "armv6l", "armv7l", "armv8l", "arm":
		goarch = "arm"
	case "ppc64le", "ppc64", "s390x", "riscv64", "mips64", "loong64":
		goarch = machine
	default:
		goarch = machine
	}
	return goos, goarch
}

// Ensure makes sure the host has this build of melmux, copying it over
// ssh into the host user's data directory when it has not (no root, no
// other port: the same ssh), and returns the shell prelude that finds it
// there (hostPrelude). A host whose platform has no build is an error that
// says how to make one.
func Ensure(ctx context.Context, ssh []string, dest string, bins Binaries) (string, error) {
	// The build is named by the local binaries; what the host needs is
	// known once its platform is.
	probe := `uname -s; uname -m; ` + hostPrelude("") + `ls "$d" 2>/dev/null; true`
	out, err := runSSH(ctx, ssh, dest, probe, nil)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		return "", fmt.Errorf("%s: uname said %q", dest, out)
	}
	goos, goarch := goPlatform(strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]))
	files := bins.files(goos, goarch)
	if files == nil {
		dist := bins.Dist
		if dist == "" {
			dist = "$XDG_DATA_HOME/melmux/dist"
		}
		return "", fmt.Errorf("%s runs %s on %s (%s/%s) and this melmux is built for %s/%s: build it for the host with `GOOS=%s GOARCH=%s CGO_ENABLED=0 go build -o %s/%s-%s/ ./cmd/...`, or install melmux there",
			dest, strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]), goos, goarch, runtime.GOOS, runtime.GOARCH, goos, goarch, dist, goos, goarch)
	}
	id, err := buildID(files)
	if err != nil {
		return "", err
	}
	have := map[string]bool{}
	for _, l := range lines[2:] {
		have[strings.TrimSpace(l)] = true
	}
	prelude := hostPrelude(id)
	// The probe listed the builds directory: is this one in it?
	if have[id] {
		check := prelude + `for f in ` + strings.Join(names(files), " ") + `; do [ -x "$d/$f" ] || exit 3; done`
		if _, err := runSSH(ctx, ssh, dest, check, nil); err == nil {
			return prelude, nil
		}
	}
	// Each binary goes into a directory of this copy's own, moved in
	// place whole: a copy cut short, or another melmux copying at the
	// same time, never leaves a half-written build where one is looked for.
	part := `"$d.part-` + randomID()[:8] + `"`
	for _, n := range names(files) {
		f, err := os.Open(files[n])
		if err != nil {
			return "", err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return "", err
		}
		script := prelude + `umask 077; t=` + part + `; mkdir -p "$t" && cat > "$t/` + n + `" && ` +
			`[ "$(wc -c < "$t/` + n + `" | tr -d ' ')" = ` + strconv.FormatInt(fi.Size(), 10) + ` ] && chmod 700 "$t/` + n + `"`
		_, err = runSSH(ctx, ssh, dest, script, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("copy %s to %s: %w", n, dest, err)
		}
	}
	place := prelude + `t=` + part + `; if [ -d "$d" ]; then rm -rf "$t"; else mv "$t" "$d"; fi`
	if _, err := runSSH(ctx, ssh, dest, place, nil); err != nil {
		return "", fmt.Errorf("install melmux on %s: %w", dest, err)
	}
	return prelude, nil
}

func names(files map[string]string) []string {
	var out []string
	for _, n := range []string{"melmux", "melmux-server", "melmux-agent"} {
		if _, ok := files[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// runSSH runs script under sh on dest and returns its output; its error
// holds what ssh or the script said on stderr.
func runSSH(ctx context.Context, ssh []string, dest, script string, stdin io.Reader) (string, error) {
	cmd := exec.CommandContext(ctx, ssh[0], sshArgs(ssh[1:], dest, "sh -c "+shQuote(script), connectTimeout(ctx, ssh, dest, true))...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("ssh %s: %s", dest, msg)
	}
	return out.String(), nil
}
