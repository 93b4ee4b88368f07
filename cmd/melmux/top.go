package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// topEvery is how often `melmux top` asks again. The server samples /proc
// at most once a second and only when asked, so a top left open costs it
// one sample a second.
const topEvery = time.Second

func init() {
	cli.Register(&cli.Verb{
		Name:    "top",
		Usage:   "[--once]",
		Summary: "CPU, memory, legs, tokens and cost per pane (a remote pane's read on its host), refreshed every second (q quits; --once, or no terminal: one table)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "top")
			once := fs.Bool("once", false, "print one table and exit (for scripts)")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("top takes no arguments, got %q", strings.Join(fs.Args(), " "))
			}
			c, err := dial(g)
			if err != nil {
				return err
			}
			defer c.Close()
			// Without a terminal (a pipe, the ":" prompt) there is nothing
			// to refresh: one table, as with --once.
			if *once || needTerminal() != nil {
				panes, err := topPanes(context.Background(), c)
				if err != nil {
					return err
				}
				_, err = g.Stdout.Write([]byte(strings.Join(topTable(panes), "\n") + "\n"))
				return err
			}
			return liveTop(g, c)
		},
	})
}

func topPanes(ctx context.Context, c *client.Client) ([]proto.PaneInfo, error) {
	var panes []proto.PaneInfo
	err := c.Call(ctx, "list_panes", proto.ListPanesParams{Resources: true}, &panes)
	return panes, err
}

// liveTop redraws the table every topEvery on the terminal's alternate
// screen until q, Esc or Ctrl-C, or the session ends.
func liveTop(g *cli.Globals, c *client.Client) error {
	fd := int(os.Stdin.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return fmt.Errorf("top: %w", err)
	}
	out := os.Stdout
	out.WriteString("\x1b[?1049h\x1b[?25l")
	defer func() {
		out.WriteString("\x1b[?25h\x1b[?1049l")
		term.Restore(fd, old) // Best effort: the terminal is ours to give back.
	}()
	quit := make(chan struct{})
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := os.Stdin.Read(buf)
			if err != nil || bytes.ContainsAny(buf[:n], "qQ\x03\x1b") {
				close(quit)
				return
			}
		}
	}()
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-quit
		cancel()
	}()
	var panes []proto.PaneInfo
	next := time.NewTimer(0)
	defer next.Stop()
	for {
		select {
		case <-quit:
			return nil
		case <-winch:
		case <-next.C:
			p, err := topPanes(ctx, c)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return fmt.Errorf("top: %w", err)
			}
			panes = p
			next.Reset(topEvery)
		}
		cols, rows, err := term.GetSize(int(out.Fd()))
		if err != nil {
			cols, rows = 80, 24
		}
		head := fmt.Sprintf("melmux top · session %s · %s · q quits", sessionLabel(g), time.Now().Format("15:04:05"))
		lines := append([]string{head, ""}, topTable(panes)...)
		out.WriteString(topFrame(lines, cols, rows))
	}
}

// topFrame draws lines from the top-left corner, each cut to the width,
// clearing what the last frame left.
func topFrame(lines []string, cols, rows int) string {
	var b strings.Builder
	b.WriteString("\x1b[H")
	for i, l := range lines {
		if i >= rows {
			break
		}
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(shorten(l, cols))
		b.WriteString("\x1b[K")
	}
	b.WriteString("\x1b[J")
	return b.String()
}

// topTable is the table of panes, with a total row. When a pane runs on
// another host, a HOST column says where ("local" for this machine) and
// each host gets a total row of its own: a remote pane's CPU and memory are
// its program's on that host, "-" while the host cannot say.
func topTable(panes []proto.PaneInfo) []string {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	var hosts []string // in the order first seen, this machine first
	for _, p := range panes {
		if p.Host != nil && !slices.Contains(hosts, *p.Host) {
			hosts = append(hosts, *p.Host)
		}
	}
	if len(hosts) > 0 {
		hosts = append([]string{"local"}, hosts...)
	}
	// Numbers are right-aligned in fixed widths, text left-aligned.
	row := func(pane, tab, host, cpu, mem, legs, in, out, cost, state, program string) {
		if len(hosts) > 0 {
			tab += "\t" + host
		}
		fmt.Fprintf(tw, "%s\t%s\t%6s\t%6s\t%5s\t%9s\t%7s\t%9s\t%s\t%s\n", pane, tab, cpu, mem, legs, in, out, cost, state, program)
	}
	row("PANE", "TAB", "HOST", "CPU%", "MEM", "LEGS", "TOKENS IN", "OUT", "COST", "STATE", "PROGRAM")
	type total struct {
		cpu              float64
		rss              int64
		measured         bool
		legs, in, outTok int
		cost             float64
		priced           bool
		panes            int
	}
	all := &total{measured: true}
	byHost := map[string]*total{}
	for _, p := range panes {
		host := "local"
		if p.Host != nil {
			host = *p.Host
		}
		h := byHost[host]
		if h == nil {
			h = &total{}
			byHost[host] = h
		}
		h.panes++
		state, program := p.Activity, p.Command
		if p.Status != "running" {
			state = "exited"
		}
		legsT, inT, outT, costT := "-", "-", "-", "-"
		if a := p.Agent; a != nil {
			state = a.State
			program = a.Kind
			if a.Kind == "melmux" {
				program = strings.TrimSpace("mel " + a.Role + " " + a.Model)
				legsT, inT, outT = fmt.Sprint(a.Legs), countText(a.InputTokens), countText(a.OutputTokens)
				for _, t := range []*total{all, h} {
					t.legs, t.in, t.outTok = t.legs+a.Legs, t.in+a.InputTokens, t.outTok+a.OutputTokens
				}
				if a.Cost != nil {
					costT = costText(*a.Cost)
					for _, t := range []*total{all, h} {
						t.cost, t.priced = t.cost+*a.Cost, true
					}
				}
			}
		}
		for _, t := range []*total{all, h} {
			if p.CPU != nil {
				t.cpu, t.measured = t.cpu+*p.CPU, true
			}
			if p.RSS != nil {
				t.rss, t.measured = t.rss+*p.RSS, true
			}
		}
		mark := " "
		if p.Focused {
			mark = "*"
		}
		row(fmt.Sprint(p.ID)+mark, fmt.Sprint(p.Tab), client.VisibleLine(host), cpuText(p.CPU), bytesText(p.RSS), legsT, inT, outT, costT, client.VisibleLine(state), shorten(client.VisibleLine(program), 40))
	}
	totalRow := func(host string, t *total) {
		costT := "-"
		if t.priced {
			costT = costText(t.cost)
		}
		cpu, rss := &t.cpu, &t.rss
		if !t.measured {
			cpu, rss = nil, nil
		}
		row("all", "", host, cpuText(cpu), bytesText(rss), fmt.Sprint(t.legs), countText(t.in), countText(t.outTok), costT, "", plural(t.panes, "pane"))
	}
	for _, host := range hosts {
		if t := byHost[host]; t != nil {
			totalRow(client.VisibleLine(host), t)
		}
	}
	all.panes = len(panes)
	totalRow("", all)
	tw.Flush()
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// cpuText is a CPU share in percent of one core.
func cpuText(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *v)
}

// bytesText is a size in binary units: 512K, 41.2M, 1.3G.
func bytesText(v *int64) string {
	if v == nil {
		return "-"
	}
	n := float64(*v)
	for _, u := range []string{"K", "M", "G", "T"} {
		n /= 1024
		if n < 1024 || u == "T" {
			if n < 10 {
				return fmt.Sprintf("%.1f%s", n, u)
			}
			return fmt.Sprintf("%.0f%s", n, u)
		}
	}
	return ""
}

// countText is a token count: 950, 12.3k, 4.1M.
func countText(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// costText is money in the unit of the [prices] table, with the cents a
// small cost needs.
func costText(c float64) string {
	if c < 1 {
		return fmt.Sprintf("%.4f", c)
	}
	return fmt.Sprintf("%.2f", c)
}
