package certify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestSuggestedFixturesRoundTrip: the fixtures file fixtures --suggest
// prints loads with --fixtures to the mappings a run would use: the given
// file's (its unsafe:, call_tools: and protected: too) and the discovered
// ones with their arguments; an official name and a tool left alone are
// comments only, and a tool whose name needs quoting survives.
func TestSuggestedFixturesRoundTrip(t *testing.T) {
	file := FixturesFile{
		Roles:     map[string]run.Fixture{"slow": {Tool: "nap", Arguments: map[string]any{"seconds": 60}}},
		Unsafe:    []string{"rm -rf", "drop: table"},
		CallTools: toolpolicy.All,
		Protected: true,
	}
	d := run.Discovery{
		Transport: "stdio",
		Found: []run.Found{
			{Role: "progress", Fixture: run.Fixture{Tool: "count-sheep", Arguments: map[string]any{"duration": 1.0, "steps": int64(1), "label": "a: b"}}, How: "found by calling count-sheep: it sent notifications/progress"},
			{Role: "logging", Fixture: run.Fixture{Tool: "test_tool_with_logging"}, Official: true, How: "offered under its official fixture name test_tool_with_logging"},
			{Role: "roots", Fixture: run.Fixture{Tool: "#roots: yes"}, How: "found by calling #roots: yes: it sent roots/list"},
		},
		Hints: []run.Hint{{Role: "sampling", LeftAlone: toolpolicy.LeftAlone{Name: "ask-model", Why: toolpolicy.WhyNotReadOnly}}},
	}
	out, err := SuggestedFixtures(file, d, toolpolicy.All)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"# found by calling count-sheep: it sent notifications/progress", "logging: offered under its official fixture name test_tool_with_logging",
		"sampling: its checks would call a tool left alone: ask-model (not marked readOnlyHint: true; allow with --call-tools all, or name the tool in --fixtures)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the suggestion does not say %q:\n%s", want, text)
		}
	}
	path := filepath.Join(t.TempDir(), "fixtures.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFixturesFile(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	want := map[string]run.Fixture{
		"slow":     file.Roles["slow"],
		"progress": d.Found[0].Fixture,
		"roots":    {Tool: "#roots: yes", Arguments: map[string]any{}},
	}
	if a, b := asJSON(t, got.Roles), asJSON(t, want); a != b {
		t.Errorf("loaded %s\nwant   %s\nfrom:\n%s", a, b, text)
	}
	if !slices.Equal(got.Unsafe, file.Unsafe) || got.CallTools != file.CallTools || !got.Protected {
		t.Errorf("settings: unsafe %q, call_tools %q, protected %v; want %q, %q, true", got.Unsafe, got.CallTools, got.Protected, file.Unsafe, file.CallTools)
	}
	empty, err := SuggestedFixtures(FixturesFile{}, run.Discovery{Why: "the run names no server"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, empty, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadFixturesFile(path); err != nil || len(got.Roles) != 0 {
		t.Errorf("an empty suggestion loads as %+v, %v:\n%s", got, err, empty)
	}
}

// asJSON is v as JSON: the arguments' numbers alike, whatever Go type
// held them.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
