package report

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

func result(id string, o check.Outcome, msg string) check.Result {
	return check.Result{
		Descriptor: check.Descriptor{
			ID: id, Title: "title of " + id, Rules: []string{"ST-01"},
			Level: check.MUST, Role: check.Server, Transport: check.Stdio,
		},
		Outcome: o, Message: msg, DurationMS: 12,
	}
}

// dirEntries lists the names in dir, sorted.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func wantContains(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%q\ndoes not contain %q", s, p)
		}
	}
}
