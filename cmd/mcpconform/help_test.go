package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// "mcpconform" runs the command line as the binary does, in a child of the
// test binary: serve, adapter and fakeserver write to the process's own
// standard output.
func init() { selfexec.Register("mcpconform", runHarness) }

// TestEveryCommandHasHelp runs -h and --help of mcpconform alone and of
// every command its own help lists: each exits 0 and prints on stdout a
// synopsis, the -- CMD… form where the command takes a target, and an
// example; help COMMAND prints the same.
func TestEveryCommandHasHelp(t *testing.T) {
	takesTarget := []string{"client", "server", "fixtures", "fuzz", "replay"}
	code, top, _ := runCLI("-h")
	if code != 0 {
		t.Fatalf("mcpconform -h: exit %d", code)
	}
	commands := []string{""}
	for _, m := range regexp.MustCompile(`(?m)^  mcpconform ([a-z][a-z-]*)`).FindAllStringSubmatch(top, -1) {
		commands = append(commands, m[1])
	}
	for _, want := range []string{"client", "server", "fixtures", "selftest", "list", "rules", "fuzz", "replay", "badge", "serve", "version", "adapter", "fakeserver", "auth-token"} {
		if !slices.Contains(commands, want) {
			t.Errorf("mcpconform -h does not list %s", want)
		}
	}
	for _, cmd := range commands {
		for _, flag := range []string{"-h", "--help"} {
			args := []string{flag}
			if cmd != "" {
				args = []string{cmd, flag}
			}
			code, stdout, stderr := runCLI(args...)
			name := strings.TrimSpace("mcpconform " + cmd)
			if cmd == "help" {
				name = "mcpconform" // help -h is mcpconform -h
			}
			if code != 0 || stderr != "" {
				t.Errorf("%s %s: exit %d, stderr %q; want 0 and nothing", name, flag, code, stderr)
			}
			if !strings.HasPrefix(stdout, "Usage:\n  "+name) {
				t.Errorf("%s %s does not open with its synopsis:\n%s", name, flag, stdout)
			}
			if _, examples, _ := strings.Cut(stdout, "\nExamples:\n"); !regexp.MustCompile(`(?m)^  .*\b` + regexp.QuoteMeta(name) + `\b`).MatchString(examples) {
				t.Errorf("%s %s shows no example:\n%s", name, flag, stdout)
			}
			if slices.Contains(takesTarget, cmd) && !strings.Contains(stdout, "-- CMD…") {
				t.Errorf("%s %s does not show the -- CMD… form:\n%s", name, flag, stdout)
			}
		}
		if cmd == "" || cmd == "help" {
			continue
		}
		if _, viaHelp, _ := runCLI("help", cmd); viaHelp != mustHelp(t, cmd) {
			t.Errorf("mcpconform help %s differs from mcpconform %s -h", cmd, cmd)
		}
	}
}

func mustHelp(t *testing.T, cmd string) string {
	t.Helper()
	code, stdout, _ := runCLI(cmd, "-h")
	if code != 0 {
		t.Fatalf("%s -h: exit %d", cmd, code)
	}
	return stdout
}

// runCLI runs mcpconform with args in a child process and returns its exit
// status, stdout and stderr.
func runCLI(args ...string) (int, string, string) {
	argv := selfexec.Command("mcpconform", args...)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return exitCode(cmd.Run()), stdout.String(), stderr.String()
}
