package wireschema

import (
	"encoding/json"
	"testing"
)

// listToolsResult is a typical tools/list page: three tools, one with a
// nested inputSchema, and a cursor.
const listToolsResult = `{"jsonrpc":"2.0","id":7,"result":{"tools":[` +
	`{"name":"echo","description":"Echoes its text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},` +
	`{"name":"add","description":"Adds a and b.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},"annotations":{"readOnlyHint":true}},` +
	`{"name":"search","title":"Search","description":"Searches documents.","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"filters":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}}}}` +
	`],"nextCursor":"Mg=="}}`

// BenchmarkValidate is the cost of judging one typical tools/list result.
func BenchmarkValidate(b *testing.B) {
	s := mustFor(b, "2025-06-18")
	msg := []byte(listToolsResult)
	if v := s.Validate(msg, "tools/list"); v != nil {
		b.Fatal(v)
	}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		s.Validate(msg, "tools/list")
	}
}

// BenchmarkDecodeBaseline decodes the same message into generic JSON, the
// least any judge of a message does: BenchmarkValidate's cost beside it is
// what the schema walk adds.
func BenchmarkDecodeBaseline(b *testing.B) {
	msg := []byte(listToolsResult)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(msg, &v); err != nil {
			b.Fatal(err)
		}
	}
}
