package server

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestDiscoveryFindsFixturesByWhatTheyDo runs the fixtures discovery
// against the renamed-fixtures fake, whose tools bear no official fixture
// name: by default it finds the progress, logging and sampling tools by
// calling the read-only tools, never calls the tools left alone (the fake
// records every call), and names the one that would serve elicitation;
// with --call-tools all it finds that one too. The tool that never answers
// is given up at the patience and serves nothing.
func TestDiscoveryFindsFixturesByWhatTheyDo(t *testing.T) {
	for _, tc := range []struct {
		mode   toolpolicy.Mode
		found  map[string]string
		hinted map[string]string
		spare  []string // never called
	}{
		{toolpolicy.ReadOnly,
			map[string]string{"progress": stdiofake.ToolCountSheep, "logging": stdiofake.ToolChatter, "sampling": stdiofake.ToolAskModel},
			map[string]string{"elicitation": stdiofake.ToolAskUser},
			[]string{stdiofake.ToolAskUser, stdiofake.ToolWipe}},
		{toolpolicy.All,
			map[string]string{"progress": stdiofake.ToolCountSheep, "logging": stdiofake.ToolChatter, "sampling": stdiofake.ToolAskModel, "elicitation": stdiofake.ToolAskUser},
			nil, nil},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			record := filepath.Join(t.TempDir(), "record.jsonl")
			run.Configure(run.Options{ServerCommand: run.FakeCommand(stdiofake.Options{Case: "renamed-fixtures", Record: record}), CallTools: tc.mode, Patience: time.Second})
			d := discoverFixtures(context.Background(), run.Current())
			if d.Transport != check.Stdio || d.Why != "" {
				t.Fatalf("discovery %+v, want one over stdio", d)
			}
			got := map[string]string{}
			for _, f := range d.Found {
				got[f.Role] = f.Fixture.Tool
				if f.Official || !strings.HasPrefix(f.How, "found by calling "+f.Fixture.Tool+": it sent "+evidence[f.Role]) {
					t.Errorf("%s: how %q", f.Role, f.How)
				}
			}
			if !maps.Equal(got, tc.found) {
				t.Errorf("found %v, want %v", got, tc.found)
			}
			hinted := map[string]string{}
			for _, h := range d.Hints {
				hinted[h.Role] = h.Name
				if h.Why != toolpolicy.WhyNotReadOnly {
					t.Errorf("hint %+v, want why %q", h, toolpolicy.WhyNotReadOnly)
				}
			}
			if !maps.Equal(hinted, tc.hinted) {
				t.Errorf("hints %v, want %v", hinted, tc.hinted)
			}
			rec, err := stdiofake.ReadRecord(record)
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, m := range rec.Requests("tools/call") {
				var p struct {
					Name string `json:"name"`
					Meta struct {
						ProgressToken jsonrpc.ID `json:"progressToken"`
					} `json:"_meta"`
				}
				_ = json.Unmarshal(m.Params, &p)
				calls = append(calls, p.Name)
				if p.Meta.ProgressToken.Key() != discoveryToken.Key() {
					t.Errorf("%s was called without the progress token: %s", p.Name, m.Params)
				}
			}
			for _, name := range tc.spare {
				if slices.Contains(calls, name) || slices.Contains(d.Called, name) {
					t.Errorf("%s was called (calls %v)", name, calls)
				}
			}
			if slices.Sort(calls); !slices.Equal(slices.Compact(calls), d.Called) {
				t.Errorf("the fake saw calls of %v; the discovery says it called %v", calls, d.Called)
			}
			if !slices.Equal(d.Unanswered, []string{stdiofake.ToolDoze}) {
				t.Errorf("unanswered %v, want doze", d.Unanswered)
			}
		})
	}
}

// TestDiscoveryLooksOnlyForWhatNoFixtureGives: a role the fixtures file
// maps is not looked for, and nothing at all is called when it maps every
// role a call shows.
func TestDiscoveryLooksOnlyForWhatNoFixtureGives(t *testing.T) {
	command := run.FakeCommand(stdiofake.Options{Case: "renamed-fixtures"})
	every := map[string]run.Fixture{}
	for _, role := range run.DiscoverableRoles {
		every[role] = run.Fixture{Tool: "echo"}
	}
	run.Configure(run.Options{ServerCommand: command, Fixtures: every, Patience: time.Second})
	if d := discoverFixtures(context.Background(), run.Current()); len(d.Called) > 0 || len(d.Found) > 0 || d.Why == "" {
		t.Errorf("discovery %+v, want nothing called, and why", d)
	}
	run.Configure(run.Options{ServerCommand: command, Fixtures: map[string]run.Fixture{"progress": {Tool: "echo"}}, Patience: time.Second})
	d := discoverFixtures(context.Background(), run.Current())
	if _, ok := d.For("progress"); ok || slices.Contains(d.Called, "echo") {
		t.Errorf("discovery %+v, want progress left to the file and echo (the file's) not called", d)
	}
}

// TestHints: a tool's words, whatever their case or separators, suggest
// a role; URL elicitation says url, form elicitation does not.
func TestHints(t *testing.T) {
	for _, tc := range []struct {
		name, description, role string
		want                    bool
	}{
		{"test_tool_with_logging", "", "logging", true},
		{"toggle-simulated-logging", "", "logging", true},
		{"catalog", "Browse the catalogue", "logging", false},
		{"getRootsList", "", "roots", true},
		{"trigger-url-elicitation", "", "elicitation-url", true},
		{"trigger-url-elicitation", "", "elicitation", false},
		{"ask", "Elicits an answer from the user", "elicitation", true},
		{"x", "Demonstrates progress updates", "progress", true},
		{"x", "Takes a sample of the data", "sampling", true},
	} {
		if got := hints(mcp.Tool{Name: tc.name, Description: tc.description}, tc.role); got != tc.want {
			t.Errorf("hints(%q, %q) for %s = %v", tc.name, tc.description, tc.role, got)
		}
	}
}
