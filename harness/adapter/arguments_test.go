package adapter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

func writeFixtures(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixtures")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFixturesGiveArguments: a fixtures file (YAML, JSON, or the official
// suite's toolCalls context) gives named tools their arguments, with
// {"$inputSchemaOf": TOOL} standing for another tool's inputSchema; the
// other tools get an instance of their inputSchema.
func TestFixturesGiveArguments(t *testing.T) {
	tools := []mcp.Tool{
		{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`)},
		{Name: "focal", InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`)},
		{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"schema":{"type":"object"}},"required":["schema"]}`)},
	}
	for name, text := range map[string]string{
		"yaml":    "echo:\n  schema: {$inputSchemaOf: focal}\n",
		"json":    `{"echo":{"schema":{"$inputSchemaOf":"focal"}}}`,
		"context": `{"name":"s","toolCalls":[{"name":"echo","arguments":{"schema":{"$inputSchemaOf":"focal"}}}]}`,
	} {
		fx, err := loadFixtures(writeFixtures(t, text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		args, err := fx.arguments(tools[2], tools)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(args)
		if string(b) != `{"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}}` {
			t.Errorf("%s: echo arguments %s", name, b)
		}
		if args, _ := fx.arguments(tools[0], tools); !reflect.DeepEqual(args, map[string]any{"a": 1.0}) {
			t.Errorf("%s: add arguments %v", name, args)
		}
	}
}

// TestFixturesErrorsNameTheWayOut: an unreadable file, arguments that are
// not an object and a $inputSchemaOf naming an unlisted tool are errors that
// say what to fix.
func TestFixturesErrorsNameTheWayOut(t *testing.T) {
	if _, err := loadFixtures(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing file loads")
	}
	if _, err := loadFixtures(writeFixtures(t, "add: 3\n")); err == nil || !strings.Contains(err.Error(), "not an object") {
		t.Errorf("scalar arguments: %v", err)
	}
	fx, _ := loadFixtures(writeFixtures(t, `{"echo":{"schema":{"$inputSchemaOf":"gone"}}}`))
	if _, err := fx.arguments(mcp.Tool{Name: "echo"}, nil); err == nil || !strings.Contains(err.Error(), "fix the fixtures file") {
		t.Errorf("unlisted tool: %v", err)
	}
}
