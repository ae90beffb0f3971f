// Package certify runs a certification of MCP implementations: given a
// certifying command's arguments (client, server, or the default run of the
// built-in references), it prepares the run, probes the targets, runs the
// checks in this process or in worker processes, merges what they found and
// writes the reports. It runs the fuzzer the same way (Fuzz: the targets,
// the search, the saved cases, the JSON and JUnit reports) and replays
// corpus cases (Replay). Command mcpconform and package mcpconformtest
// call it.
package certify

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	_ "github.com/mcpconform/mcpconform/fakeservers/stdiofake" // the fakeserver subcommand the client checks run
	_ "github.com/mcpconform/mcpconform/harness/adapter"       // the adapter subcommand: the reference client
	"github.com/mcpconform/mcpconform/harness/reaper"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	_ "github.com/mcpconform/mcpconform/suites/client" // the checks
	_ "github.com/mcpconform/mcpconform/suites/http"   // the checks
	_ "github.com/mcpconform/mcpconform/suites/server" // the checks
	_ "github.com/mcpconform/mcpconform/suites/stdio"  // the checks
)

// Version is the version the reports and the console name; the command
// sets it from its build.
var Version = "dev"

// The certifying commands run as children of the current executable: the
// workers of a parallel run (shard), and the runs of the self-test and of
// package mcpconformtest (client, server), processes of their own that
// reap as the CLI's do.
func init() {
	selfexec.Register("shard", Main)
	selfexec.Register("client", func(args []string) int { return Main(append([]string{"client"}, args...)) })
	selfexec.Register("server", func(args []string) int { return Main(append([]string{"server"}, args...)) })
	selfexec.Register("fixtures", func(args []string) int { return Main(append([]string{"fixtures"}, args...)) })
}

// Main runs a certifying command: client ARGS, server ARGS, fixtures ARGS,
// or the default run with ARGS (flags only), writing to this process's stdout and stderr.
// It makes this process the subreaper of everything the run starts and
// reaps what is left before it returns: no process of a run outlives it.
func Main(args []string) int {
	reaper.Enable()
	defer reaper.ReapAll(5 * time.Second)
	return Command(args, os.Stdout, os.Stderr)
}

// Command runs a certifying command (client ARGS, server ARGS, fixtures
// ARGS, or the default run with ARGS) and returns its exit status.
func Command(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "client":
			return Client(args[1:], stdout, stderr)
		case "server":
			return Server(args[1:], stdout, stderr)
		case "fixtures":
			return Fixtures(args[1:], stdout, stderr)
		}
	}
	return All(args, stdout, stderr)
}

// UsageError marks an error as a usage error (exit status 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }

func (e UsageError) Unwrap() error { return e.Err }

// ExitFor maps an error to an exit status, printing it.
func ExitFor(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "mcpconform:", err)
	return 2
}

// checkWritable checks that a report can be written at path (a usage
// error when it cannot).
func checkWritable(path string) error {
	if err := report.CheckWritable(path); err != nil {
		return UsageError{err}
	}
	return nil
}
