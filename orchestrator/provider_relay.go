package orchestrator

import (
	"encoding/json"
	"fmt"

	"github.com/melmux/melmux/toolexec"
)

// relayProtocol is the Mel relay's protocol: the conversation in the
// relay's own message shape, answered with delta / tool_calls / done /
// error events.
type relayProtocol struct{}

type relayRequest struct {
	Model    string             `json:"model"`
	ToolRole toolexec.Role      `json:"tool_role"`
	Messages []Message          `json:"messages"`
	Tools    []toolexec.ToolDef `json:"tools"`
}

// relayEvent is the union of the relay's event payloads; Type names the
// event when the stream has no event: line.
type relayEvent struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Message string `json:"message"`
	Calls   []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"calls"`
	Usage *wireUsage `json:"usage"`
}

func (relayProtocol) body(req Request, model string) any {
	body := relayRequest{Model: model, ToolRole: req.Role, Messages: req.Messages, Tools: req.Tools}
	if body.ToolRole == "" {
		body.ToolRole = toolexec.RoleLead // toolexec's reading of no role
	}
	if body.Messages == nil {
		body.Messages = []Message{}
	}
	if body.Tools == nil {
		body.Tools = []toolexec.ToolDef{}
	}
	return body
}

// read follows the stream to its tool_calls or done event. It stops reading
// at either: after tool_calls the leg is complete, so a later failure of the
// stream cannot take the calls back.
func (relayProtocol) read(dec *sseDecoder, g *gather) (Reply, error) {
	var reply Reply
	err := dec.each(func(sse sseEvent) (bool, error) {
		switch sse.Event {
		case "", "delta", "tool_calls", "done", "error":
		default:
			return false, nil // an event of a later protocol
		}
		var ev relayEvent
		if err := json.Unmarshal([]byte(sse.Data), &ev); err != nil {
			if sse.Event == "" {
				return false, nil // nameless and unreadable, such as a [DONE] marker
			}
			return false, fmt.Errorf("event %q: data is not JSON: %v", sse.Event, err)
		}
		switch firstSet(sse.Event, ev.Type) {
		case "delta":
			return false, g.addText(ev.Text)
		case "tool_calls":
			if err := g.setCalls(len(ev.Calls)); err != nil {
				return false, err
			}
			for _, c := range ev.Calls {
				if err := g.addArgs(len(c.Arguments)); err != nil {
					return false, err
				}
				reply.Calls = append(reply.Calls, finishCall(ToolCall{ID: c.ID, Name: c.Name, Arguments: rawArguments(c.Arguments)}))
			}
			reply.Usage = ev.Usage.usage()
			return true, nil
		case "done":
			reply.Usage = ev.Usage.usage()
			return true, nil
		case "error":
			return false, &eventError{msg: "the relay reported an error: " + firstSet(ev.Message, sse.Data)}
		}
		return false, nil
	}, nil, "its done or tool_calls event")
	if err != nil {
		return Reply{}, err
	}
	reply.Text = g.text.String()
	return reply, nil
}
