// Package procstat reads what process trees use from Linux's /proc: the CPU
// time and resident memory of a process and all its descendants, so melmux
// can say what each pane (a shell and what it started, an agent and its
// tools) costs.
//
// A tree's CPU time counts its live processes' own time and the time of the
// children they have reaped (cutime, cstime), so a compiler that ran and
// exited between two samples is still counted, once: the difference of two
// samples of a tree is what the tree used in between, as long as its
// processes are reaped inside it. Memory is the sum of the processes'
// resident sets; pages they share are counted once per process.
package procstat
