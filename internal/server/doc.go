// Package server is the session: one daemon process owning its panes, their
// layout in tabs, the command table and the socket clients reach it through.
//
// Every pane operation is a Command in one table (one file per command, as
// tmux's cmd-*.c), reached the same way by the CLI, agents and MCP: a JSON
// request on a control connection. The Server's mutex guards the pane table,
// the layout and the session size (the parts below own the rest); commands
// take it only to read or change that state and never while waiting (for
// output to settle, for a pane to exit), so one slow command never holds up
// another. Each request runs on its own
// goroutine under recover: a panic becomes an "internal" error value for that
// request and the server goes on. The server ends when its last pane is
// killed or on kill-server, ending its panes' processes.
//
// # Parts and their locks
//
// The server is in parts, each owning its state behind its own lock:
//
//   - The pane table and commands (Server.mu): the panes and what the server
//     keeps of each (paneEntry), the layout, the session size, the paste
//     buffer. Server.mu is taken only through withLock and withFresh
//     (lock.go).
//   - The agents part, in two pieces with a lock each. Neither takes
//     Server.mu inside its own lock; what it needs of the pane table is
//     handed to it or read without the lock.
//   - Each pane's agent (paneAgent, agent.go; its agentMu): what runs in
//     the pane as last looked up, the agent state engine and its reports,
//     the notifications held back and the attention mark, the agent CLI's
//     turns and questions. The pane's watcher, an agent's hooks (notify),
//     read_agent, send_keys and answer (their looks at the question) and
//     the waits for an agent to be ready or a question to go take it
//     alone: a pane's agent is decided, told and read while a command or
//     a frame holds Server.mu. They find the pane by the agents part's
//     index of the table (agentEntry; a pane in it from startPaneLocked
//     to removePane, which marks it gone under its agent lock) and
//     whether a person looks at it by the focus the last section under
//     Server.mu left (Server.focus). The pane table's sections
//     (list_panes, the agents rows, frames, the state file) take it
//     inside Server.mu. Each decision reads what it needs of the pane's
//     emulator first, holding no lock of the server's, and decides under
//     the locks from that read (the screen only when the last decision no
//     longer holds), as a frame does: the watcher, notify, wait --state,
//     read_agent (its look and its wait for a turn), send_keys, answer,
//     send_agent (its look at the kind and its answer) and the waits for
//     an agent to be ready or a question to go by agentFreshRead; explain
//     (a decision made anew) the whole screen, then the agent lock alone; list_panes and the agents rows
//     (melmux agents, the agents view, the key to the next waiting agent,
//     the pages) every pane's before they take Server.mu
//     (withAgentsRead). An emulator busy parsing a flood holds up who
//     reads it alone: not, through Server.mu, every command, nor, through
//     the agent lock, whoever else needs the pane's agent. A frame and a
//     list in their last round still read under the locks a pane their
//     reads kept missing.
//   - The melmux agents (melAgents, melagent.go; melAgents.mu): per pane,
//     the melmux agent registered (kept once exited, until the pane leaves
//     the table) with its queue of messages, its turns, replies and
//     counters, and which of its turns were told; and the channel closed at
//     the pane's next agent change of any kind, with the count of those
//     changes. The agent's own calls (agent_next, agent_report) and
//     read_agent of a live one take melAgents.mu alone. What it needs of
//     the pane table is handed to it: the pane (its process's status, by
//     the pane's own lock) as it enters and leaves the table (add in
//     startPaneLocked, drop in removePane, under Server.mu, as is
//     agent_register's check that the pane runs); a call for a pane not in
//     it looks the pane up in the table afterwards, for the error. A pane's
//     agent reads it inside its agent lock: a copy of the agent (view,
//     melLocked) for the decisions, list_panes, the borders and the state
//     file, the count of changes for the decisions' cache; send_agent
//     queues under Server.mu and melAgents.mu. A finished turn to tell is
//     handed back and told (attendLocked) under the pane's agent lock once
//     melAgents.mu is let go of.
//   - The clients (clientSet, clients.go; clientSet.mu): who is attached and
//     who is joining against max_clients, when the session was last used,
//     the release of departed clients' memory; a lock-free copy of the list
//     for the pane readers' invalidate. Each client's own state (terminal,
//     screen, input, scene) belongs to its loop goroutine (attach.go), its
//     messages to client.msgMu, its terminal's size to ttyArea.mu.
//   - The scheduling for a person's keys (package sched; its own locks): the
//     echo hold, the feed slots, the typing reserve, the spare P.
//   - The drawing of each pane (paneDraw, scene.go; paneDraw.mu): the
//     snapshot of its screen every client draws from, and the last screen
//     drawn outside a synchronized output frame. A frame asks under
//     Server.mu what it must read of which panes, reads their emulators
//     holding no lock of the server's, then builds the scene under
//     Server.mu from what it read: a pane whose emulator is busy parsing
//     holds up the frames that read it, never the commands.
//
// Lock order: a lock may be taken while holding the locks above it in this
// list, never one above while holding one below.
//
//  1. Server.mu
//  2. a pane's agent lock (paneAgent.agentMu; one pane's at a time)
//  3. melAgents.mu (under it only a pane's own locks, for its status)
//  4. clientSet.mu
//  5. a client's msgMu and its terminal's locks (ttyArea.mu, the write lock)
//  6. the Sched's locks (it calls nothing of the server's)
//  7. paneDraw.mu
//  8. a pane's own locks (its emulator, its input queue; package pane)
//
// So a client joins or leaves under clientSet.mu alone, and then lays the
// session out under Server.mu (resizeToClientsLocked reads the published
// list); commands and notifications that read the clients under Server.mu
// take clientSet.mu inside it or read the published list.
package server
