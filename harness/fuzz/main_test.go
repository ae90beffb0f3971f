package fuzz

import (
	"os"
	"testing"

	"github.com/mcpconform/mcpconform/harness/selfexec"
	_ "github.com/mcpconform/mcpconform/harness/serve" // the reference server, as a subcommand
)

func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// reference is the reference stdio server, as a child of the test binary.
func reference(args ...string) Target {
	return Target{Command: selfexec.Command("serve", append([]string{"--transport", "stdio"}, args...)...)}
}
