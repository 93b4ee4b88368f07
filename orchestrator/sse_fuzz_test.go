package orchestrator

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzStreams feeds arbitrary bytes, split at arbitrary points, to the SSE
// decoder and to each provider's reading of a leg. Whatever a server sends,
// a leg ends with a reply or an error, never a panic or a hang; a reply's
// calls have ids and names, so the loop can pair and run them; and the decoder never yields more data than it was given.
func FuzzStreams(f *testing.F) {
	for _, seed := range []string{
		"event: delta\ndata: {\"text\":\"hi\"}\n\nevent: done\ndata: {}\n\n",
		"event: tool_calls\r\ndata: {\"calls\":[{\"name\":\"read_file\",\"arguments\":\"\"}]}\r\n\r\n",
		"data: {\"type\":\"tool_calls\",\"calls\":[{\"id\":\"a\",\"name\":\"x\",\"arguments\":\"{\\\"p\\\":1}\"}]}\n\n",
		": comment\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\":1}\"}}]}}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"1\",\"function\":{\"name\":\"a\",\"arguments\":\"{}\"}},{\"id\":\"2\",\"function\":{\"name\":\"b\",\"arguments\":\"\"}}]}}]}\n\ndata: [DONE]\n",
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"grep\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":4}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		"event: error\ndata: {\"message\":\"overloaded\"}\n\n",
		"data: " + strings.Repeat("x", 70000) + "\n\n",
	} {
		f.Add([]byte(seed), uint8(7))
	}
	protocols := []struct {
		name  string
		proto protocol
	}{
		{"relay", relayProtocol{}},
		{"openai", openAIProtocol{}},
		{"anthropic", anthropicProtocol{}},
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		chunked := func() io.Reader {
			if split == 0 {
				return bytes.NewReader(data)
			}
			return iotest.HalfReader(&chunkReader{data: data, n: int(split)})
		}
		dec := newSSEDecoder(chunked())
		total := 0
		for i := 0; i <= len(data)+1; i++ {
			ev, err := dec.Next()
			if err != nil {
				break
			}
			total += len(ev.Data)
			if total > len(data) {
				t.Fatalf("decoder yielded %d bytes of data from %d bytes of input", total, len(data))
			}
		}
		for _, p := range protocols {
			text := 0
			r, err := readLeg(p.proto, newSSEDecoder(chunked()), newGather(Limits{}, func(s string) { text += len(s) }))
			if err != nil {
				continue
			}
			if text > len(data) {
				t.Fatalf("%s: streamed %d bytes of text from %d bytes", p.name, text, len(data))
			}
			for _, c := range r.Calls {
				if c.Name == "" || c.ID == "" {
					t.Fatalf("%s: a call without a name or an id reached the loop: %+v", p.name, c)
				}
			}
		}
	})
}

// chunkReader hands data out n bytes at a time, as a network does.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(c.n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}
