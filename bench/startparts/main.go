package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// parts are one build's times, in ms.
type parts struct{ daemon, wait, new []float64 }

func main() {
	rounds := flag.Int("n", 40, "rounds")
	flag.Parse()
	if flag.NArg() == 0 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: startparts [-n ROUNDS] MELMUX... (melmux binaries with melmux-server beside each)")
		os.Exit(2)
	}
	bins := flag.Args()
	for _, b := range bins {
		if _, err := os.Stat(filepath.Join(filepath.Dir(b), "melmux-server")); err != nil {
			fmt.Fprintf(os.Stderr, "startparts: no melmux-server beside %s: %v\n", b, err)
			os.Exit(2)
		}
	}
	dir, err := os.MkdirTemp("", "startparts")
	if err != nil {
		fmt.Fprintln(os.Stderr, "startparts:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_RUNTIME_DIR", dir)
	os.Setenv("XDG_STATE_HOME", dir)
	res := make([]parts, len(bins))
	for r := range *rounds {
		for i, bin := range bins {
			if err := round(bin, fmt.Sprintf("r%d-%d", r, i), &res[i]); err != nil {
				fmt.Fprintf(os.Stderr, "startparts: %s: %v\n", bin, err)
				os.Exit(1)
			}
		}
	}
	fmt.Printf("%d rounds, load average %s\n", *rounds, loadavg())
	for i, bin := range bins {
		fmt.Printf("%s: daemon to ok %.2f ms, wait call %.2f ms, new -d %.2f ms (medians)\n",
			bin, median(res[i].daemon), median(res[i].wait), median(res[i].new))
	}
}

// round times the three parts once for bin, with sessions named after name.
func round(bin, name string, p *parts) error {
	server := filepath.Join(filepath.Dir(bin), "melmux-server")
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	// As `melmux new` starts it: its own process session, fd 3 the ready
	// pipe, stdio on /dev/null (os/exec's, when left nil).
	daemon := exec.Command(server, "__serve", "-s", "d"+name, "--ready-fd", "3", "--cli", bin, "--new", "--", "true")
	daemon.ExtraFiles = []*os.File{pw}
	daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	t0 := time.Now()
	err = daemon.Start()
	pw.Close()
	if err != nil {
		return err
	}
	defer func() {
		_ = daemon.Process.Signal(syscall.SIGTERM)
		_ = daemon.Wait()
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	p.daemon = append(p.daemon, ms(t0))
	if strings.TrimSpace(line) != "ok" {
		return fmt.Errorf("the daemon said %q", line)
	}
	t1 := time.Now()
	out, err := exec.Command(bin, "-s", "d"+name, "wait", "-t", "1", "--exit").CombinedOutput()
	p.wait = append(p.wait, ms(t1))
	if err != nil {
		return fmt.Errorf("wait: %v: %s", err, out)
	}
	t2 := time.Now()
	out, err = exec.Command(bin, "-s", "n"+name, "new", "-d", "--", "true").CombinedOutput()
	p.new = append(p.new, ms(t2))
	if err != nil {
		return fmt.Errorf("new: %v: %s", err, out)
	}
	return exec.Command(bin, "-s", "n"+name, "kill-server").Run()
}

func ms(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
