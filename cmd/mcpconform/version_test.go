package main

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionString(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install @version", "v1.2.3", nil, "v1.2.3"},
		{"released from a clean tree", "v1.2.3",
			vcs("vcs", "git", "vcs.revision", "abc1234def5678", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "false"),
			"v1.2.3 (commit abc1234, 2026-12-01T10:00:00Z)"},
		{"a modified checkout", "(devel)",
			vcs("vcs.revision", "abc1234def5678", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "true"),
			"(devel) (commit abc1234, 2026-12-01T10:00:00Z, modified)"},
		{"a pseudo-version", "v0.0.0-20261201100000-abc1234def56", nil, "v0.0.0-20261201100000-abc1234def56"},
		{"no module version", "", vcs("vcs.revision", "abc"), "(devel) (commit abc)"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpconform/mcpconform", Version: tc.version}, Settings: tc.settings}
		if got := versionString(info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestInstalledBinaryPrintsItsCommit builds the command as go install
// does from this checkout, with the commit stamped (-buildvcs=true, since
// a GOFLAGS=-buildvcs=false of the machine would drop it), and runs its
// version subcommand.
func TestInstalledBinaryPrintsItsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git checkout to build from: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "mcpconform")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build with: %v", err)
	}
	build := exec.Command(goTool, "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	commit := strings.TrimSpace(string(head))[:7]
	if !strings.Contains(string(out), "(commit "+commit) {
		t.Errorf("version printed %q, want the commit %s it was built from", out, commit)
	}
}
