package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"
)

// stream writes one answer as Server-Sent Events in a protocol's shape,
// flushing every event so the client sees them as they are written.
type stream struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	proto string
	block int // Anthropic: the index of the next content block
}

func newStream(w http.ResponseWriter, proto string) *stream {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w), proto: proto}
	_ = st.rc.Flush()
	return st
}

// event writes one event; name "" writes a data line alone (OpenAI). It
// returns the write's error: the client has gone.
func (st *stream) event(name string, v any) error {
	data, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(st.w, "event: %s\n", name)
	}
	if _, err := fmt.Fprintf(st.w, "data: %s\n\n", data); err != nil {
		return err
	}
	return st.rc.Flush()
}

// raw writes b as it is and flushes it.
func (st *stream) raw(b string) error {
	if _, err := io.WriteString(st.w, b); err != nil {
		return err
	}
	return st.rc.Flush()
}

// endless streams piece as text deltas until gone says the client or the
// server has gone, or a write fails.
func (st *stream) endless(piece string, gone func() bool) {
	i := st.block
	if st.proto == Anthropic {
		st.block++
		st.event("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "text", "text": ""}})
	}
	for !gone() {
		var err error
		switch st.proto {
		case Relay:
			err = st.event("delta", obj{"text": piece})
		case OpenAI:
			err = st.chunk(obj{"content": piece}, nil)
		case Anthropic:
			err = st.event("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": obj{"type": "text_delta", "text": piece}})
		}
		if err != nil {
			return
		}
	}
}

type obj = map[string]any

func (st *stream) start(leg Leg) {
	switch st.proto {
	case OpenAI:
		st.chunk(obj{"role": "assistant"}, nil)
	case Anthropic:
		u := usageOf(leg)
		st.event("message_start", obj{"type": "message_start", "message": obj{
			"id": "msg_modeltest", "type": "message", "role": "assistant", "content": []any{},
			"stop_reason": nil, "usage": obj{"input_tokens": u.InputTokens, "output_tokens": 1}}})
		st.event("ping", obj{"type": "ping"})
	}
}

// chunk writes an OpenAI chunk with one choice.
func (st *stream) chunk(delta obj, finish any) error {
	return st.event("", obj{"object": "chat.completion.chunk", "choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish}}})
}

// text streams text in n deltas (fewer when it has fewer runes).
func (st *stream) text(text string, n int) {
	if text == "" {
		return
	}
	pieces := split(text, n)
	switch st.proto {
	case Relay:
		for _, p := range pieces {
			st.event("delta", obj{"text": p})
		}
	case OpenAI:
		for _, p := range pieces {
			st.chunk(obj{"content": p}, nil)
		}
	case Anthropic:
		i := st.block
		st.block++
		st.event("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "text", "text": ""}})
		for _, p := range pieces {
			st.event("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": obj{"type": "text_delta", "text": p}})
		}
		st.event("content_block_stop", obj{"type": "content_block_stop", "index": i})
	}
}

// calls streams the calls: the relay in one event, OpenAI as an opening
// fragment and n pieces of arguments per call, Anthropic as tool_use
// blocks whose input arrives as an empty piece and then n more.
func (st *stream) calls(calls []Call, ids []string, u Usage, n int) {
	if len(calls) == 0 {
		return
	}
	switch st.proto {
	case Relay:
		var list []obj
		for i, c := range calls {
			call := obj{"name": c.Name, "arguments": c.Arguments}
			if ids[i] != "" {
				call["id"] = ids[i]
			}
			list = append(list, call)
		}
		st.event("tool_calls", obj{"calls": list, "usage": u})
	case OpenAI:
		for i, c := range calls {
			first := obj{"index": i, "type": "function", "function": obj{"name": c.Name, "arguments": ""}}
			if ids[i] != "" {
				first["id"] = ids[i]
			}
			st.chunk(obj{"tool_calls": []any{first}}, nil)
			for _, p := range split(c.Arguments, n) {
				st.chunk(obj{"tool_calls": []any{obj{"index": i, "function": obj{"arguments": p}}}}, nil)
			}
		}
	case Anthropic:
		for i, c := range calls {
			b := st.block
			st.block++
			use := obj{"type": "tool_use", "name": c.Name, "input": obj{}}
			if ids[i] != "" {
				use["id"] = ids[i]
			}
			st.event("content_block_start", obj{"type": "content_block_start", "index": b, "content_block": use})
			for _, p := range append([]string{""}, split(c.Arguments, n)...) {
				st.event("content_block_delta", obj{"type": "content_block_delta", "index": b, "delta": obj{"type": "input_json_delta", "partial_json": p}})
			}
			st.event("content_block_stop", obj{"type": "content_block_stop", "index": b})
		}
	}
}

// end closes a whole answer.
func (st *stream) end(wantsTools, cut bool, u Usage) {
	switch st.proto {
	case Relay:
		if !wantsTools { // tool_calls already ended the leg
			st.event("done", obj{"usage": u})
		}
	case OpenAI:
		finish := "stop"
		switch {
		case cut:
			finish = "length"
		case wantsTools:
			finish = "tool_calls"
		}
		st.chunk(obj{}, finish)
		st.event("", obj{"object": "chat.completion.chunk", "choices": []any{},
			"usage": obj{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens}})
		fmt.Fprint(st.w, "data: [DONE]\n\n")
		_ = st.rc.Flush()
	case Anthropic:
		stop := "end_turn"
		switch {
		case cut:
			stop = "max_tokens"
		case wantsTools:
			stop = "tool_use"
		}
		st.event("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop}, "usage": obj{"output_tokens": u.OutputTokens}})
		st.event("message_stop", obj{"type": "message_stop"})
	}
}

// fail ends the answer with an error in the protocol's shape.
func (st *stream) fail(msg string) {
	switch st.proto {
	case Relay:
		st.event("error", obj{"message": msg})
	case OpenAI:
		st.event("", apiError(OpenAI, msg))
	case Anthropic:
		st.event("error", apiError(Anthropic, msg))
	}
}

// split cuts s into at most n pieces of about the same size, at rune
// boundaries; "" is one empty piece. It copies nothing, so a script can
// send hundreds of megabytes.
func split(s string, n int) []string {
	if s == "" || n <= 1 {
		return []string{s}
	}
	n = min(n, len(s))
	out := make([]string, 0, n)
	from := 0
	for i := 1; i <= n; i++ {
		to := i * len(s) / n
		for to < len(s) && !utf8.RuneStart(s[to]) {
			to++
		}
		if to > from {
			out = append(out, s[from:to])
			from = to
		}
	}
	return out
}

// wholeAnswer is leg as one JSON body: an OpenAI chat completion or an
// Anthropic message.
func wholeAnswer(proto string, leg Leg, ids []string) obj {
	u := usageOf(leg)
	if proto == Anthropic {
		content := []any{}
		if text := leg.text(); text != "" {
			content = append(content, obj{"type": "text", "text": text})
		}
		for i, c := range leg.Calls {
			var input any = obj{}
			_ = json.Unmarshal([]byte(c.Arguments), &input)
			content = append(content, obj{"type": "tool_use", "id": ids[i], "name": c.Name, "input": input})
		}
		stop := "end_turn"
		switch {
		case leg.Cut:
			stop = "max_tokens"
		case len(leg.Calls) > 0:
			stop = "tool_use"
		}
		return obj{"id": "msg_modeltest", "type": "message", "role": "assistant", "content": content, "stop_reason": stop,
			"usage": obj{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}}
	}
	msg := obj{"role": "assistant", "content": leg.text()}
	var calls []any
	for i, c := range leg.Calls {
		call := obj{"type": "function", "function": obj{"name": c.Name, "arguments": c.Arguments}}
		if ids[i] != "" {
			call["id"] = ids[i]
		}
		calls = append(calls, call)
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	finish := "stop"
	switch {
	case leg.Cut:
		finish = "length"
	case len(calls) > 0:
		finish = "tool_calls"
	}
	return obj{"object": "chat.completion", "choices": []any{obj{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": obj{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens}}
}
