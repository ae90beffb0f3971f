package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/certify"
	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestFixturesFoundByBehaviour certifies the renamed-fixtures fake, whose
// tools bear no official fixture name, without a fixtures file.
// fixtures --suggest prints a file that loads with --fixtures and maps the
// progress, logging and sampling tools it found by calling them. With the
// safe default, the progress and sampling checks pass on the tools found
// (their message says how each was found, and so do the reports), the
// elicitation check is UNIMPLEMENTED naming the tool left alone it would
// call and the flag that allows it, and neither that tool nor the
// destructive one is ever called; --call-tools all judges elicitation too.
func TestFixturesFoundByBehaviour(t *testing.T) {
	t.Parallel()
	record := filepath.Join(t.TempDir(), "record.jsonl")
	fake := run.FakeCommand(stdiofake.Options{Case: "renamed-fixtures", Record: record})
	code, out := runChild("fixtures", append([]string{"--suggest", "--"}, fake...)...)
	if code != 0 {
		t.Fatalf("fixtures --suggest: exit %d\n%s", code, out)
	}
	for _, want := range []string{"fixtures: progress: count-sheep (found by calling count-sheep: it sent notifications/progress",
		"# elicitation: its checks would call a tool left alone: ask-user (not marked readOnlyHint: true; allow with --call-tools all, or name the tool in --fixtures)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("fixtures --suggest does not say %q:\n%s", want, out)
		}
	}
	yaml := filepath.Join(t.TempDir(), "fixtures.yaml")
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "mcpconform: ") { // stderr's lines, mixed in by runChild
			lines = append(lines, line)
		}
	}
	if err := os.WriteFile(yaml, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	ff, err := certify.LoadFixturesFile(yaml)
	if err != nil {
		t.Fatalf("the suggestion does not load: %v\n%s", err, out)
	}
	for role, tool := range map[string]string{"progress": stdiofake.ToolCountSheep, "logging": stdiofake.ToolChatter, "sampling": stdiofake.ToolAskModel} {
		if ff.Roles[role].Tool != tool {
			t.Errorf("the suggestion maps %s to %q, want %s:\n%s", role, ff.Roles[role].Tool, tool, out)
		}
	}
	checks := "--only=server.progress.echoed-and-increasing,server.reverse.sampling-error-handled,server.reverse.elicitation-error-handled"
	md := filepath.Join(t.TempDir(), "r.md")
	code, ix, console := runServer(t, append([]string{checks, "-v", "--markdown", md, "--"}, fake...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, console)
	}
	outcomes := map[string]check.Outcome{}
	for _, c := range ix.Checks {
		outcomes[c.ID] = c.Outcome
		switch c.ID {
		case "server.progress.echoed-and-increasing":
			if !strings.Contains(c.Message, "note: the progress tool count-sheep was found by calling count-sheep: it sent notifications/progress") {
				t.Errorf("%s does not say how its tool was found: %q", c.ID, c.Message)
			}
		case "server.reverse.elicitation-error-handled":
			if !strings.Contains(c.Message, "its checks would call ask-user") || !strings.Contains(c.Message, "allow with --call-tools all") {
				t.Errorf("%s does not name the tool left alone and the way out: %q", c.ID, c.Message)
			}
		}
	}
	want := map[string]check.Outcome{"server.progress.echoed-and-increasing": check.Pass, "server.reverse.sampling-error-handled": check.Pass,
		"server.reverse.elicitation-error-handled": check.Unimplemented}
	for id, o := range want {
		if outcomes[id] != o {
			t.Errorf("%s: %s, want %s\n%s", id, outcomes[id], o, console)
		}
	}
	if ix.Tools == nil || !slices.ContainsFunc(ix.Tools.FixturesFound, func(f toolpolicy.FoundFixture) bool { return f.Role == "sampling" && f.Tool == stdiofake.ToolAskModel }) {
		t.Errorf("the JSON index does not say which tool samples: %+v", ix.Tools)
	}
	mdText, _ := os.ReadFile(md)
	if !strings.Contains(string(mdText), "| progress | count-sheep | found by calling count-sheep") {
		t.Errorf("the Markdown does not say which tool reports progress:\n%s", mdText)
	}
	if !strings.Contains(console, "mcpconform: fixtures: logging: chatter (found by calling chatter: it sent notifications/message") {
		t.Errorf("the verbose console does not say which tool logs:\n%s", console)
	}
	for _, name := range []string{stdiofake.ToolAskUser, stdiofake.ToolWipe} {
		if n := calledIn(t, record, name); n > 0 {
			t.Errorf("%s, left alone, was called %d times", name, n)
		}
	}
	code, ix, console = runServer(t, append([]string{checks, "--call-tools", "all", "--"}, fake...)...)
	if code != 0 {
		t.Fatalf("--call-tools all: exit %d\n%s", code, console)
	}
	for _, c := range ix.Checks {
		if _, selected := want[c.ID]; selected && c.Outcome != check.Pass {
			t.Errorf("--call-tools all: %s %s: %s", c.ID, c.Outcome, c.Message)
		}
	}
}

// calledIn counts the tools/call of name in a fake's record.
func calledIn(t *testing.T, record, name string) int {
	t.Helper()
	rec, err := stdiofake.ReadRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range rec.Requests("tools/call") {
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Name == name {
			n++
		}
	}
	return n
}
