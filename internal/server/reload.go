package server

import (
	"time"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/ui"
)

// liveConfig is the part of the config that source_file replaces in a
// running session. A published one is never changed: a reader loads the
// pointer (Server.cfg) and keeps to what it loaded, so a reload takes no
// lock of the readers', and none of them sees half of one file and half of
// the other.
type liveConfig struct {
	ui       UIConfig
	scroll   int           // history lines of panes started from now on
	readWait time.Duration // read_agent's default bound
	prices   map[string]config.Price
	agents   AgentsConfig
	// problem is what was wrong with the file last read, shown to each
	// client that attaches; "" for nothing.
	problem string
}

// cfg is the config as last read.
func (s *Server) cfg() *liveConfig { return s.conf.Load() }

// reload makes cfg, read from the config file with problem ("" for none),
// the session's: the prefix, bindings and status colours of every client
// (attached or to come), the agents' kinds, rules and policy, the
// notifications, the prices, read_agent's default wait and the scrollback
// of new panes. The shell, max_clients and remain_on_exit are the
// session's from its start: notes says which of them the file changes.
func (s *Server) reload(cfg config.Config, problem string) (notes []string) {
	old := s.cfg()
	uc := old.ui // the prompt's verbs are not the file's
	uc.Prefix, uc.Bindings, uc.Status = cfg.Prefix, cfg.Bindings, cfg.Status
	ac := old.agents // nor are the audit log and the notifications' pace
	ac.Rules, ac.Policy = cfg.Agents.Rules, cfg.Agents.Policy
	ac.Bell, ac.OSC9, ac.NotifyCommand = cfg.Agents.Bell, cfg.Agents.OSC9, cfg.Agents.NotifyCommand
	wait := cfg.Agent.ReadWait
	if wait <= 0 {
		wait = config.DefaultReadWait
	}
	lc := &liveConfig{ui: uc, scroll: cfg.Scrollback, readWait: wait, prices: cfg.Prices, agents: ac, problem: problem}
	s.withLock(func() {
		s.conf.Store(lc)
		// The engines are the panes' (under their agent locks): each weighs its
		// screen by the new rules from its next decision, keeping its
		// state and history. What each pane runs is looked up again by
		// the new kinds at the next look (a lookup is otherwise made
		// again only after output), and whoever waits on a pane's agent
		// looks again now: a pane quiet at a question the new rules
		// know is waiting without printing anything more.
		rules := s.rules()
		for _, e := range s.panes {
			e.agentDo(func() {
				if e.ag.engine != nil {
					e.ag.engine.SetRules(rules)
				}
				e.kindAt = time.Time{}
				s.agentChangedLocked(e)
			})
		}
		if cfg.Shell != "" && cfg.Shell != s.shell {
			notes = append(notes, "shell "+cfg.Shell+": for sessions started from now on (this one starts "+s.shell+")")
		}
		if cfg.MaxClients != s.clients.max {
			notes = append(notes, "max_clients: for sessions started from now on")
		}
		if cfg.RemainOnExit != s.remain {
			notes = append(notes, "remain_on_exit: for sessions started from now on")
		}
	})
	s.invalidate() // the status colours; the clients rebind as they draw
	return notes
}

// rebind gives the client's input the prefix and bindings of the config
// last read, when they are not what it has. It runs on the client's loop,
// which owns the input, before each key is read and each frame is drawn:
// a key typed once source_file has answered goes by the new keys.
func (c *client) rebind() {
	lc := c.s.cfg()
	if lc == c.keysFrom {
		return
	}
	c.keysFrom = lc
	if err := c.input.SetKeys(lc.ui.Prefix, lc.ui.Bindings); err != nil {
		// The config package checked them; keep the keys the client has.
		c.s.log.Warn("bindings from the config refused", "err", err)
	}
}

// newInput is a new client's input, with the prefix and bindings of the
// config last read.
func (s *Server) newInput() (*ui.Input, *liveConfig) {
	lc := s.cfg()
	input, err := ui.NewInput(lc.ui.Prefix, lc.ui.Bindings)
	if err != nil {
		s.log.Warn("bindings from config refused, using defaults", "err", err)
		input, _ = ui.NewInput("", nil)
	}
	return input, lc
}
