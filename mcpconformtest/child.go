package mcpconformtest

import (
	"os"

	_ "github.com/mcpconform/mcpconform/certify" // the checks, and the run's subcommands
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// childEnv marks the processes of a run: the child of the test binary that
// runs the checks, and the servers, adapters, fakes and workers it starts
// from the same executable.
const childEnv = "MCPCONFORMTEST_CHILD"

// A process of a run is this test binary started with a subcommand of
// mcpconform (client, server, serve, adapter, fakeserver, shard, …): it
// runs the subcommand and exits before any test starts, so that a test
// package needs no TestMain.
func init() {
	if os.Getenv(childEnv) == "" || len(os.Args) < 2 {
		return
	}
	if main, ok := selfexec.Lookup(os.Args[1]); ok {
		os.Exit(main(os.Args[2:]))
	}
}
