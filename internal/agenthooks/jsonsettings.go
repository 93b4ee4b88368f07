package agenthooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"
)

// layout is the layout Claude Code and Gemini CLI write their settings
// in (JSON.stringify with two spaces): a file already in it is kept in it
// after an edit, and any other keeps its own with the added lines compact.
var layout = &pretty.Options{Width: -1, Indent: "  "}

// group is one entry of a hook event's list: melmux's hook alone.
func group(command string) []byte {
	raw, _ := json.Marshal(map[string]any{"hooks": []map[string]string{{"type": "command", "command": command}}})
	return raw
}

// parseJSON checks data is a JSON object whose "hooks", if any, is an
// object of lists.
func parseJSON(agent string, data []byte) (gjson.Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return gjson.Parse("{}"), nil
	}
	if !gjson.ValidBytes(data) {
		return gjson.Result{}, fmt.Errorf("%w: it is not plain JSON (comments or a syntax error), which melmux edits only as it is; %s", ErrCannotEdit, byHand(agent))
	}
	doc := gjson.ParseBytes(data)
	if !doc.IsObject() {
		return gjson.Result{}, fmt.Errorf("%w: it holds a JSON %s where an object of settings belongs", ErrCannotEdit, kindOf(doc))
	}
	hooks := doc.Get("hooks")
	if hooks.Exists() && !hooks.IsObject() {
		return gjson.Result{}, fmt.Errorf("%w: its \"hooks\" is a %s, not an object of events", ErrCannotEdit, kindOf(hooks))
	}
	for _, ev := range events[agent] {
		if l := hooks.Get(gjson.Escape(ev)); l.Exists() && !l.IsArray() {
			return gjson.Result{}, fmt.Errorf("%w: its \"hooks\".%q is a %s, not a list", ErrCannotEdit, ev, kindOf(l))
		}
	}
	return doc, nil
}

func kindOf(r gjson.Result) string {
	switch {
	case r.IsObject():
		return "object"
	case r.IsArray():
		return "list"
	case r.Type == gjson.String:
		return "string"
	case r.Type == gjson.Number:
		return "number"
	case r.Type == gjson.Null:
		return "null"
	}
	return "true/false"
}

// byHand says what to add to agent's settings by hand.
func byHand(agent string) string {
	var b strings.Builder
	b.WriteString(`add these lines to its "hooks" by hand:`)
	for _, ev := range events[agent] {
		fmt.Fprintf(&b, "\n  %q: [%s],", ev, group(Command("melmux", agent)))
	}
	return b.String()
}

// oursIn lists the indexes of event list l's groups that hold melmux's
// hook, and whether one holds it beside other hooks.
func oursIn(agent string, l gjson.Result) (idx []int, mixed bool) {
	i := 0
	l.ForEach(func(_, g gjson.Result) bool {
		ours, others := 0, 0
		g.Get("hooks").ForEach(func(_, h gjson.Result) bool {
			if IsOurs(h.Get("command").String(), agent) {
				ours++
			} else {
				others++
			}
			return true
		})
		if ours > 0 {
			idx = append(idx, i)
			mixed = mixed || others > 0
		}
		i++
		return true
	})
	return idx, mixed
}

func checkJSON(agent string, data []byte) (Status, error) {
	st := Status{Agent: agent, Exists: data != nil}
	doc, err := parseJSON(agent, data)
	if err != nil {
		return st, err
	}
	for _, ev := range events[agent] {
		if idx, _ := oursIn(agent, doc.Get("hooks."+gjson.Escape(ev))); len(idx) > 0 {
			st.Installed = append(st.Installed, ev)
		} else {
			st.Missing = append(st.Missing, ev)
		}
	}
	return st, nil
}

func installJSON(agent string, data []byte, command string) ([]byte, bool, error) {
	doc, err := parseJSON(agent, data)
	if err != nil {
		return nil, false, err
	}
	out := data
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("{}")
	}
	pretty := bytes.Equal(out, prettyJSON(out))
	changed := false
	for _, ev := range events[agent] {
		if idx, _ := oursIn(agent, doc.Get("hooks."+gjson.Escape(ev))); len(idx) > 0 {
			continue
		}
		if out, err = sjson.SetRawBytes(out, "hooks."+sjsonEscape(ev)+".-1", group(command)); err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrCannotEdit, err)
		}
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	if pretty || data == nil {
		out = prettyJSON(out)
	}
	return out, true, nil
}

func removeJSON(agent string, data []byte) ([]byte, bool, error) {
	doc, err := parseJSON(agent, data)
	if err != nil || data == nil {
		return data, false, err
	}
	out := data
	pretty := bytes.Equal(out, prettyJSON(out))
	changed := false
	for _, ev := range events[agent] {
		path := "hooks." + sjsonEscape(ev)
		l := doc.Get("hooks." + gjson.Escape(ev))
		idx, mixed := oursIn(agent, l)
		if mixed {
			return nil, false, fmt.Errorf("%w: its %q list holds melmux's hook in one entry with other hooks; take it out by hand", ErrCannotEdit, ev)
		}
		if len(idx) == 0 {
			continue
		}
		changed = true
		if len(idx) == len(l.Array()) {
			out, err = sjson.DeleteBytes(out, path)
		} else {
			for i := len(idx) - 1; i >= 0 && err == nil; i-- {
				out, err = sjson.DeleteBytes(out, fmt.Sprintf("%s.%d", path, idx[i]))
			}
		}
		if err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrCannotEdit, err)
		}
	}
	if !changed {
		return data, false, nil
	}
	if h := gjson.GetBytes(out, "hooks"); h.IsObject() && len(h.Map()) == 0 {
		if out, err = sjson.DeleteBytes(out, "hooks"); err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrCannotEdit, err)
		}
	}
	if pretty {
		out = prettyJSON(out)
	}
	return out, true, nil
}

func prettyJSON(data []byte) []byte { return pretty.PrettyOptions(data, layout) }

// sjsonEscape escapes a key for an sjson path.
func sjsonEscape(key string) string { return gjson.Escape(key) }
