// Command faults drives a running melmux session through the churn of the
// fault suite (bench/faults.sh) and prints the server's figures: open fds,
// goroutines, resident memory, from the debug_stats method.
//
//	faults stats                   one line of figures, once no client and no
//	                               other connection is left
//	faults panes N                 N open_pane/kill_pane cycles, a connection each
//	faults attach N                N attach/detach cycles (half detached by the
//	                               server, half by closing the connection)
//	faults clients N COLSxROWS     N attached clients that never read; figures
//	                               while attached and after they all closed
//	faults conns N                 N raw connections at once, then closed
//	faults waits N M               N connections with M waits each that never
//	                               come true; figures with them, then after the
//	                               connections closed
//	faults hugesize                a client claiming 65535x65535, then a resize
//	                               frame saying so again
//	faults mcp MELMUX              MELMUX mcp fed one 95 MiB line, six of them
//	                               pipelined, a 200 MiB line, and a 32 MiB
//	                               write_file (--base-tools), each in a fresh
//	                               process: its peak RSS (VmHWM) once answered
//
// The session is $MELMUX_SOCKET, else -s NAME (default main) in the socket
// directory (for mcp, the one MELMUX mcp finds itself). Lines of output are
// `key value...` for the script to read.
package main
