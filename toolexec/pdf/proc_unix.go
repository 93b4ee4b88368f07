//go:build unix

package pdf

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup puts the engine in a process group of its own so a
// timeout can kill the browser together with every helper it forked.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}

// needNoSandbox: Chromium's sandbox cannot start as root.
func needNoSandbox() bool { return os.Geteuid() == 0 }
