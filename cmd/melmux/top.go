package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
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
		Summary: "CPU, memory, legs, tokens and cost per pane, refreshed every second (q quits; --once, or no terminal: one table)",
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

// topTable is the table of panes, with a total row.
func topTable(panes []proto.PaneInfo) []string {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	// Numbers are right-aligned in fixed widths, text left-aligned.
	row := func(pane, tab, cpu, mem, legs, in, out, cost, state, program string) {
		fmt.Fprintf(tw, "%s\t%s\t%6s\t%6s\t%5s\t%9s\t%7s\t%9s\t%s\t%s\n", pane, tab, cpu, mem, legs, in, out, cost, state, program)
	}
	row("PANE", "TAB", "CPU%", "MEM", "LEGS", "TOKENS IN", "OUT", "COST", "STATE", "PROGRAM")
	var cpu float64
	var rss int64
	var legs, in, outTok int
	var cost float64
	priced := false
	for _, p := range panes {
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
				legs, in, outTok = legs+a.Legs, in+a.InputTokens, outTok+a.OutputTokens
				if a.Cost != nil {
					costT, cost, priced = costText(*a.Cost), cost+*a.Cost, true
				}
			}
		}
		if p.CPU != nil {
			cpu += *p.CPU
		}
		if p.RSS != nil {
			rss += *p.RSS
		}
		mark := " "
		if p.Focused {
			mark = "*"
		}
		row(fmt.Sprint(p.ID)+mark, fmt.Sprint(p.Tab), cpuText(p.CPU), bytesText(p.RSS), legsT, inT, outT, costT, client.VisibleLine(state), shorten(client.VisibleLine(program), 40))
	}
	totalCost := "-"
	if priced {
		totalCost = costText(cost)
	}
	row("all", "", cpuText(&cpu), bytesText(&rss), fmt.Sprint(legs), countText(in), countText(outTok), totalCost, "", plural(len(panes), "pane"))
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
