package certify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

// TestFixturesFileErrors: a fixtures file is read strictly, each mistake
// named.
func TestFixturesFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{"progress: {tool: ticker, arguments: {steps: 3}}\n", ""},
		{"call_tools: none\nunsafe: [rm]\nprogress: {tool: ticker, arguments: {steps: 3}}\n", ""},
		{"telepathy: {tool: x}\n", `unknown role "telepathy"`},
		{"progress: {arguments: {}}\n", `names no tool`},
		{"progress: {tool: x, colour: red}\n", "colour"},
		{"call_tools: sometimes\n", `call_tools: "sometimes": use all, read-only (the default) or none`},
		{"protected: true\nprogress: {tool: ticker, arguments: {steps: 3}}\n", ""},
		{"protected: maybe\n", "protected: true or false"},
	} {
		path := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		ff, err := LoadFixturesFile(path)
		f := ff.Roles
		switch {
		case tc.want == "" && (err != nil || f["progress"].Tool != "ticker" || f["progress"].Arguments["steps"] != 3):
			t.Errorf("%q: %v, %+v", tc.body, err, f)
		case strings.HasPrefix(tc.body, "call_tools: none") && (ff.CallTools != toolpolicy.None || !slices.Equal(ff.Unsafe, []string{"rm"})):
			t.Errorf("%q: call_tools %q, unsafe %v", tc.body, ff.CallTools, ff.Unsafe)
		case strings.HasPrefix(tc.body, "protected: true") && !ff.Protected:
			t.Errorf("%q: not protected", tc.body)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want one saying %q", tc.body, err, tc.want)
		}
	}
	if _, err := LoadFixturesFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing fixtures file was accepted")
	}
}
