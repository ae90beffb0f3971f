// Command mcpconform certifies Model Context Protocol implementations: it
// runs behaviour suites against a client (through its adapter) or a server,
// reports JUnit, JSON, Markdown, HTML and snapshots, and proves with its
// self-test that every check can fail.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/certify"
	"github.com/mcpconform/mcpconform/fakeservers/stdiofake" // the fakeserver subcommand
	"github.com/mcpconform/mcpconform/harness/adapter"
	"github.com/mcpconform/mcpconform/harness/reaper"
	"github.com/mcpconform/mcpconform/harness/serve"
	_ "github.com/mcpconform/mcpconform/suites/client" // the checks
	_ "github.com/mcpconform/mcpconform/suites/http"   // the checks
	_ "github.com/mcpconform/mcpconform/suites/server" // the checks
	_ "github.com/mcpconform/mcpconform/suites/stdio"  // the checks
)

func main() { os.Exit(runHarness(os.Args[1:])) }

// runHarness runs a command; one that starts targets makes this process
// the subreaper of everything they start, and reaps what is left before
// it returns: no process of a run outlives it.
func runHarness(args []string) int {
	if startsTargets(args) {
		reaper.Enable()
		defer reaper.ReapAll(5 * time.Second)
	}
	return dispatch(args, os.Stdout, os.Stderr)
}

// startsTargets says whether the command runs targets (certifies, fuzzes,
// replays, finds fixtures): the default run and client, server, fixtures,
// selftest, fuzz, replay. The
// reference adapter and servers and the fakes are targets themselves and
// must behave as any would, so they never adopt orphans.
func startsTargets(args []string) bool {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return true
	}
	switch args[0] {
	case "client", "server", "fixtures", "selftest", "fuzz", "replay", "shard":
		return true
	}
	return false
}

// errUsage marks an error as a usage error (exit status 2).
type errUsage struct{ error }

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return certify.All(nil, stdout, stderr)
	}
	switch args[0] {
	case "shard": // a worker of a parallel run: the command it was given
		return dispatch(args[1:], stdout, stderr)
	case "client":
		return certify.Client(args[1:], stdout, stderr)
	case "server":
		return certify.Server(args[1:], stdout, stderr)
	case "fixtures":
		return certify.Fixtures(args[1:], stdout, stderr)
	case "serve":
		return serve.Main(args[1:])
	case serve.AuthTokenCommand: // a token of serve --auth's authorization server
		return serve.AuthTokenMain(args[1:])
	case serve.PlantedOrphanCommand: // the child of a planted bug of the reference server
		return serve.PlantedOrphan(args[1:])
	case "selftest":
		return selftestCommand(args[1:], stdout, stderr)
	case "list":
		return list(args[1:], stdout, stderr)
	case "badge":
		return badgeCommand(args[1:], stdout, stderr)
	case "baseline":
		return baselineCommand(args[1:], stdout, stderr)
	case "rules":
		return rulesCommand(args[1:], stdout, stderr)
	case "fuzz":
		return fuzzCommand(args[1:], stdout, stderr)
	case "replay":
		return replayCommand(args[1:], stdout, stderr)
	case "adapter":
		return adapter.Main(args[1:])
	case "fakeserver":
		return stdiofake.Main(args[1:])
	case "version":
		return versionCommand(args[1:], stdout, stderr)
	case "help":
		// help COMMAND is COMMAND -h; help alone, mcpconform -h.
		if len(args) > 1 && args[1] != "help" {
			return dispatch([]string{args[1], "-h"}, stdout, stderr)
		}
		return certify.All([]string{"-h"}, stdout, stderr)
	}
	if len(args[0]) > 0 && args[0][0] == '-' {
		// Flags without a command: certify the references.
		return certify.All(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "mcpconform: unknown command %q; mcpconform -h lists the commands\n", args[0])
	return 2
}

// exitFor maps an error to an exit status, printing it.
var exitFor = certify.ExitFor
