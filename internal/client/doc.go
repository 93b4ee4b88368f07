// Package client is the typed side of the session socket used by the CLI,
// agents and the MCP server: Dial performs the hello, Call sends one request
// and waits for its response. Several calls may be in flight on one
// connection; a reader goroutine hands each response to its caller by id.
// Error values from the server come back as *proto.Error so callers can branch
// on the code.
package client
