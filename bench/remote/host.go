package main

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// host is sshd in a network namespace of its own, reached over a veth pair
// whose local end can be taken down. Its user's home and runtime
// directories are the run's (sshd's SetEnv).
type host struct {
	dir    string
	env    []string // the host user's environment, for running melmux there directly
	config string   // the ssh client's config: Host h1
	veth   string
	peer   string
	addr   string
	netns  *exec.Cmd
	sshd   *exec.Cmd
}

func run(name string, args ...string) error {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func startHost(work string, delay time.Duration) (_ *host, err error) {
	for _, p := range []string{"ssh", "ssh-keygen", "ip", "unshare", "nsenter"} {
		if _, err := exec.LookPath(p); err != nil {
			return nil, fmt.Errorf("%s is needed: %v", p, err)
		}
	}
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		return nil, fmt.Errorf("sshd (openssh-server) is needed at %s", sshd)
	}
	dir := filepath.Join(work, "host")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	n := rand.IntN(200) + 20
	h := &host{dir: dir, veth: fmt.Sprintf("mxr%d", n), peer: fmt.Sprintf("mxs%d", n), addr: fmt.Sprintf("10.232.%d.2", n)}
	defer func() {
		if err != nil {
			h.stop()
		}
	}()
	h.netns = exec.Command("unshare", "-n", "--", "sleep", "100000")
	if err := h.netns.Start(); err != nil {
		return nil, err
	}
	pid := strconv.Itoa(h.netns.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); ; {
		a, _ := os.Readlink("/proc/" + pid + "/ns/net")
		b, _ := os.Readlink("/proc/self/ns/net")
		if a != "" && a != b {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("unshare made no namespace")
		}
		time.Sleep(20 * time.Millisecond)
	}
	in := func(args ...string) error { return run("nsenter", append([]string{"-t", pid, "-n"}, args...)...) }
	for _, step := range []error{
		run("ip", "link", "add", h.veth, "type", "veth", "peer", "name", h.peer, "netns", pid),
		run("ip", "addr", "add", fmt.Sprintf("10.232.%d.1/30", n), "dev", h.veth),
		run("ip", "link", "set", h.veth, "up"),
		in("ip", "addr", "add", h.addr+"/30", "dev", h.peer),
		in("ip", "link", "set", h.peer, "up"),
		in("ip", "link", "set", "lo", "up"),
	} {
		if step != nil {
			return nil, step
		}
	}
	if delay > 0 {
		d := strconv.FormatInt(delay.Microseconds(), 10) + "us"
		if err := run("tc", "qdisc", "add", "dev", h.veth, "root", "netem", "delay", d); err != nil {
			return nil, fmt.Errorf("-delay needs tc's netem: %w", err)
		}
		if err := in("tc", "qdisc", "add", "dev", h.peer, "root", "netem", "delay", d); err != nil {
			return nil, fmt.Errorf("-delay needs tc's netem: %w", err)
		}
	}
	for _, k := range []string{"hostkey", "userkey"} {
		if err := run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(dir, k)); err != nil {
			return nil, err
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "userkey.pub"))
	if err != nil {
		return nil, err
	}
	hostPub, err := os.ReadFile(filepath.Join(dir, "hostkey.pub"))
	if err != nil {
		return nil, err
	}
	home, rundir := filepath.Join(dir, "home"), filepath.Join(dir, "run")
	for _, d := range []string{home, rundir, "/run/sshd"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	h.env = []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + rundir, "XDG_STATE_HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/sh", "LANG=C.UTF-8"}
	files := map[string]string{
		"authorized_keys": string(pub),
		"known_hosts":     fmt.Sprintf("[%s]:2222 %s", h.addr, hostPub),
		"sshd_config": strings.Join([]string{
			"Port 2222", "ListenAddress " + h.addr, "HostKey " + filepath.Join(dir, "hostkey"),
			"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"), "PidFile " + filepath.Join(dir, "sshd.pid"),
			"StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
			"PermitRootLogin prohibit-password", "LogLevel ERROR", "SetEnv " + strings.Join(h.env, " "), "",
		}, "\n"),
		"ssh_config": "Host h1\n  HostName " + h.addr + "\n  Port 2222\n  User root\n  IdentityFile " + filepath.Join(dir, "userkey") +
			"\n  IdentitiesOnly yes\n  UserKnownHostsFile " + filepath.Join(dir, "known_hosts") +
			"\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  ControlMaster no\n  LogLevel ERROR\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return nil, err
		}
	}
	h.config = filepath.Join(dir, "ssh_config")
	h.sshd = exec.Command("nsenter", "-t", pid, "-n", sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	if err := h.sshd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.DialTimeout("tcp", h.addr+":2222", time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("sshd is not listening on %s:2222: %v", h.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return h, nil
}

// setLink takes the link's local end down or up.
func (h *host) setLink(up bool) error {
	state := "down"
	if up {
		state = "up"
	}
	return run("ip", "link", "set", h.veth, state)
}

// stop ends everything in the namespace (sshd, its sessions, the host's
// melmux sessions), the namespace and the link.
func (h *host) stop() {
	if h.netns == nil || h.netns.Process == nil {
		return
	}
	pid := strconv.Itoa(h.netns.Process.Pid)
	if ns, err := os.Readlink("/proc/" + pid + "/ns/net"); err == nil {
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range procs {
			if n, _ := os.Readlink(d + "/ns/net"); n == ns && d != "/proc/"+pid {
				if p, err := strconv.Atoi(filepath.Base(d)); err == nil {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			}
		}
	}
	if h.sshd != nil && h.sshd.Process != nil {
		_ = h.sshd.Wait()
	}
	_ = h.netns.Process.Kill()
	_ = h.netns.Wait()
	_ = exec.Command("ip", "link", "del", h.veth).Run()
}

// sshCmd is ssh to the host with the run's config, asking for a terminal.
func (h *host) sshCmd(command string) *exec.Cmd {
	return exec.Command("ssh", "-F", h.config, "-t", "h1", command)
}
