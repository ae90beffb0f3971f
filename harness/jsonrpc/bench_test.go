package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchLine is one stdout line of the benchmark mix and the class it must get.
type benchLine struct {
	line []byte
	want LineClass
}

// benchMix is what a busy stdio server prints: mostly responses of about
// 200 B to 2 KB, with notifications, a few banner lines and a few damaged ones.
func benchMix(b *testing.B) []benchLine {
	b.Helper()
	tools := make([]map[string]any, 8)
	for i := range tools {
		tools[i] = map[string]any{
			"name":        fmt.Sprintf("tool_%d", i),
			"description": "Reads a file from the workspace and returns its contents as text.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"path": map[string]string{"type": "string"}, "limit": map[string]string{"type": "integer"}},
				"required":   []string{"path"},
			},
		}
	}
	toolsList := mustLine(b, 2, map[string]any{"tools": tools})
	initialize := mustLine(b, 1, map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{"tools": map[string]bool{"listChanged": true}, "logging": map[string]any{}, "resources": map[string]bool{"subscribe": true}},
		"serverInfo":      map[string]string{"name": "example-server", "version": "1.2.3"},
		"instructions":    "Use the file tools to read the workspace; write access requires confirmation.",
	})
	callSmall := mustLine(b, 3, map[string]any{
		"content":           []map[string]string{{"type": "text", "text": "The sum of 19 and 23 is 42."}},
		"structuredContent": map[string]int{"sum": 42},
		"isError":           false,
		"_meta":             map[string]string{"io.modelcontextprotocol/serverInfo": "example-server/1.2.3"},
	})
	callLarge := mustLine(b, 4, map[string]any{"content": []map[string]string{{"type": "text", "text": strings.Repeat("line \"quoted\" \\ tab\t ünïcödé\n", 32)}}})
	resource := mustLine(b, "r-5", map[string]any{"contents": []map[string]string{{"uri": "file:///workspace/README.md", "mimeType": "text/markdown", "text": strings.Repeat("# Title\n\nSome prose. ", 20)}}})
	mix := []benchLine{
		{initialize, ClassMessage},
		{toolsList, ClassMessage},
		{callSmall, ClassMessage},
		{callLarge, ClassMessage},
		{resource, ClassMessage},
		{toolsList, ClassMessage},
		{callLarge, ClassMessage},
		{callSmall, ClassMessage},
		{[]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"fs","data":"read 3 files in 12 ms from /workspace"}}`), ClassMessage},
		{[]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t-17","progress":50,"total":100}}`), ClassMessage},
		{[]byte(`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Unknown tool: invalid_tool_name"}}`), ClassMessage},
		{[]byte("Starting example-server v1.2.3 on stdio"), ClassText},
		{[]byte("[INFO] 2025-01-01T00:00:00Z loaded 8 tools from ./tools"), ClassText},
		{[]byte("Debugger listening on ws://127.0.0.1:9229/0f2c8a1e-5b9d-4e0e-9c4b-7d2f3e1a6b5c"), ClassText},
		{toolsList[:len(toolsList)/2], ClassDamaged},
		{[]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}]}`), ClassDamaged},
		{[]byte("panic in jsonrpc handler: runtime error: index out of range [3] with length 3"), ClassDamaged},
	}
	for _, l := range mix {
		if got := ClassifyLine(l.line); got != l.want {
			b.Fatalf("benchmark line %.60q classifies as %v, want %v", l.line, got, l.want)
		}
	}
	return mix
}

func mustLine(b *testing.B, id any, result any) []byte {
	b.Helper()
	var rid ID
	switch v := id.(type) {
	case int:
		rid = IntID(int64(v))
	case string:
		rid = StringID(v)
	}
	m, err := NewResult(rid, result)
	if err != nil {
		b.Fatal(err)
	}
	line, err := Encode(m)
	if err != nil {
		b.Fatal(err)
	}
	return line
}

func mixBytes(mix []benchLine) int64 {
	var n int64
	for _, l := range mix {
		n += int64(len(l.line))
	}
	return n
}

var (
	classSink LineClass
	validSink bool
)

func BenchmarkClassifyLine(b *testing.B) {
	mix := benchMix(b)
	b.SetBytes(mixBytes(mix))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range mix {
			classSink = ClassifyLine(l.line)
		}
	}
}

// BenchmarkJSONValidBaseline is the floor ClassifyLine is measured against:
// json.Valid alone over the same lines.
func BenchmarkJSONValidBaseline(b *testing.B) {
	mix := benchMix(b)
	b.SetBytes(mixBytes(mix))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range mix {
			validSink = json.Valid(l.line)
		}
	}
}
