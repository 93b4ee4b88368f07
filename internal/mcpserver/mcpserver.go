package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/melmux/melmux/toolexec"
)

// Options says which tools to serve and how to run them.
type Options struct {
	// Executor runs every call; its Role must allow the tools served.
	Executor *toolexec.Executor
	// Tools names the tools to serve, in order.
	Tools []string
	// Version is melmux's version, reported to the client.
	Version string
	// NotServed is said of a call to a melmux tool left out of Tools (how
	// to get it served); "" says nothing more.
	NotServed string
}

// New builds an MCP server exposing opts.Tools.
func New(opts Options) (*mcp.Server, error) {
	defs := map[string]toolexec.ToolDef{}
	for _, d := range toolexec.Definitions(toolexec.RoleLead) {
		defs[d.Name] = d
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "melmux", Title: "melmux panes", Version: opts.Version}, nil)
	for _, name := range opts.Tools {
		d, ok := defs[name]
		if !ok {
			return nil, fmt.Errorf("mcp: no tool %q (tools: %v)", name, slices.Sorted(maps.Keys(defs)))
		}
		schema, err := json.Marshal(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("mcp: schema of %s: %w", name, err)
		}
		srv.AddTool(&mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: json.RawMessage(schema)},
			handler(opts.Executor, d.Name))
	}
	srv.AddReceivingMiddleware(namesTools(opts.Tools, defs, opts.NotServed))
	return srv, nil
}

// namesTools makes the refusal of a call to a tool not served name the
// tools that are, as the agent's executor does (the SDK says only "unknown
// tool"), and say how to get a melmux tool that is left out.
func namesTools(served []string, known map[string]toolexec.ToolDef, notServed string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil || slices.Contains(served, call.Params.Name) {
				return next(ctx, method, req)
			}
			name := call.Params.Name
			msg := fmt.Sprintf("unknown tool %q (tools: %s)", name, strings.Join(served, ", "))
			if _, isMelmux := known[name]; isMelmux {
				msg = fmt.Sprintf("tool %q is not served here (tools: %s)", name, strings.Join(served, ", "))
				if notServed != "" {
					msg += "; " + notServed
				}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
		}
	}
}

// handler runs one tool through the executor, which validates the arguments
// against the same schema and turns every failure into an error result.
func handler(ex *toolexec.Executor, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := ex.Run(ctx, name, arguments(req))
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: res.Text}},
			IsError: res.IsError,
		}, nil
	}
}

// arguments are a call's arguments: those the connection held beside the
// request (see conn.decode), else those the SDK decoded. The held ones are
// a slice of the line read, which nothing writes to again, so they become
// the string the executor takes without a copy of up to 96 MiB.
func arguments(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		if b, ok := req.Extra.TokenInfo.Extra[heldArgumentsKey].([]byte); ok {
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
	}
	if req.Params != nil {
		return string(req.Params.Arguments)
	}
	return ""
}
