package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/layout"
)

// chooseTimeout bounds how long the session chooser waits for each other
// session's server: one stopped or stuck is listed as not answering.
const chooseTimeout = 2 * time.Second

// tmuxCommand runs the key-bound commands of tmux's keys (ui's
// tmuxkeys.go) and checks a split from the keys has room; done is false
// for the other commands, which uiCommand runs.
func (s *Server) tmuxCommand(c *client, a ui.Command) (done bool, err error) {
	switch a.Name {
	case "split-right", "split-down":
		// A split from the keys with no room says so, as tmux's "no space
		// for new pane", instead of opening a tab the person did not ask for.
		kind := map[string]layout.Kind{"split-right": layout.Right, "split-down": layout.Down}[a.Name]
		var why error
		s.withLock(func() {
			target := a.Pane
			if _, ok := s.panes[target]; !ok {
				target = s.layout.Focused()
			}
			w, h := s.paneAreaLocked()
			why = s.layout.SplitRoom(target, kind, w, h)
		})
		if errors.Is(why, layout.ErrNoRoom) {
			c.say("no room: %s (C-b c opens a tab; C-b z or a smaller split makes room)", strings.TrimPrefix(why.Error(), layout.ErrNoRoom.Error()+": "))
			return true, nil
		}
		return false, nil
	case "choose-session":
		go c.chooseSession()
		return true, nil
	case "switch-session":
		if len(a.Args) != 1 {
			return true, fmt.Errorf("switch-session needs a session name")
		}
		if a.Args[0] == s.name {
			return true, nil
		}
		c.exit(proto.SwitchReason(a.Args[0]))
		return true, nil
	case "kill-tab":
		return true, s.killTab(a)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.publishLocked() // the focus moves
	w, h := s.paneAreaLocked()
	switch a.Name {
	case "next-pane":
		s.refocusLocked(func() { s.layout.CycleFocus(1) })
	case "last-pane":
		s.refocusLocked(func() { err = s.layout.LastPane() })
	case "swap-pane":
		delta := 1
		if len(a.Args) == 1 && a.Args[0] == "prev" {
			delta = -1
		}
		if err = s.layout.SwapPane(delta); err == nil {
			s.relayoutLocked()
		}
	case "break-pane":
		if _, err = s.layout.BreakPane(s.layout.Focused()); err == nil {
			s.relayoutLocked()
		}
	case "next-layout":
		var name string
		if name, err = s.layout.NextArrangement(w, h); err == nil {
			s.relayoutLocked()
			c.say("layout: %s", name)
		}
	case "rename-tab":
		if len(a.Args) != 2 {
			return true, fmt.Errorf("rename-tab needs a tab and a name")
		}
		i, aerr := strconv.Atoi(a.Args[0])
		if aerr != nil {
			return true, fmt.Errorf("%q is not a tab number", a.Args[0])
		}
		if err = s.layout.SetTabName(i, strings.TrimSpace(a.Args[1])); err == nil {
			s.invalidateLocked()
		}
	default:
		return false, nil
	}
	return true, err
}

// killTab kills every pane of the tab the person confirmed (C-b &).
func (s *Server) killTab(a ui.Command) error {
	if len(a.Args) != 1 {
		return fmt.Errorf("kill-tab needs a tab number")
	}
	i, err := strconv.Atoi(a.Args[0])
	if err != nil {
		return fmt.Errorf("%q is not a tab number", a.Args[0])
	}
	var ids []int
	s.withLock(func() {
		tabs := s.layout.Tabs()
		if i >= 0 && i < len(tabs) {
			ids = tabs[i].Panes
		}
	})
	if ids == nil {
		return fmt.Errorf("tab %d is gone", i)
	}
	for _, id := range ids {
		last, err := s.removePane(id, true)
		if last {
			go s.lastPaneGone("last tab killed")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// chooseSession lists the sessions in the socket directory for the
// session chooser (C-b s), each from its own server, this one first
// marked: choosing another detaches this client, which attaches there.
func (c *client) chooseSession() {
	defer c.s.recovered("the session chooser", c.verbFailed)
	socks, _ := filepath.Glob(filepath.Join(proto.SocketDir(), "*.sock"))
	var mu sync.Mutex // guards infos
	var infos []proto.SessionInfo
	var wg sync.WaitGroup
	for _, sock := range socks {
		name := strings.TrimSuffix(filepath.Base(sock), ".sock")
		if name == c.s.name {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), chooseTimeout)
			defer cancel()
			var info proto.SessionInfo
			err := mxclient.Once(ctx, sock, "ls", struct{}{}, &info)
			if errors.Is(err, mxclient.ErrNoServer) {
				return // a stale socket
			}
			if err != nil {
				info = proto.SessionInfo{Name: name, Error: "not answering"}
			}
			mu.Lock()
			defer mu.Unlock()
			infos = append(infos, info)
		})
	}
	wg.Wait()
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	var panes, clients int
	c.s.withLock(func() { panes = len(c.s.panes) })
	clients = c.s.clients.count()
	items := []ui.ChooserItem{{Label: sessionLabel(proto.SessionInfo{Name: c.s.name, Panes: panes, Clients: clients}) + " *",
		Do: ui.Command{Name: "switch-session", Args: []string{c.s.name}}}}
	for _, info := range infos {
		if info.Error != "" {
			continue // nothing to attach to
		}
		items = append(items, ui.ChooserItem{Label: sessionLabel(info), Do: ui.Command{Name: "switch-session", Args: []string{info.Name}}})
	}
	locked(&c.msgMu, func() { c.chooser = items })
	c.invalidate()
}

func sessionLabel(info proto.SessionInfo) string {
	label := fmt.Sprintf("%s: %d pane", mxclient.VisibleLine(info.Name), info.Panes)
	if info.Panes != 1 {
		label += "s"
	}
	if info.Clients > 0 {
		label += fmt.Sprintf(", %d attached", info.Clients)
	}
	return label
}

// takeChooser opens the session chooser chooseSession made, if any.
func (c *client) takeChooser() {
	if items := c.takeChooserItems(); items != nil {
		c.input.ShowChooser("sessions", items, 0)
	}
}

// takeChooserItems is the chooser chooseSession left, leaving none.
func (c *client) takeChooserItems() []ui.ChooserItem {
	c.msgMu.Lock()
	defer c.msgMu.Unlock()
	items := c.chooser
	c.chooser = nil
	return items
}
