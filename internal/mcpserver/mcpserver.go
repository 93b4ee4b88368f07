package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

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
	return srv, nil
}

// handler runs one tool through the executor, which validates the arguments
// against the same schema and turns every failure into an error result.
func handler(ex *toolexec.Executor, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := ""
		if req.Params != nil {
			args = string(req.Params.Arguments)
		}
		res := ex.Run(ctx, name, args)
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: res.Text}},
			IsError: res.IsError,
		}, nil
	}
}
