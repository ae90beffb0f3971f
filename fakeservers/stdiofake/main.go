package stdiofake

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/usage"
)

func init() { selfexec.Register("fakeserver", Main) }

// Main is `mcpconform fakeserver --case ID [flags]`: one fake stdio server on
// this process's stdin, stdout and stderr. It records its start (with its
// pid), SIGTERM (then exits 0, unless the case ignores SIGTERM) and
// everything the case sees to --record, and exits 0 after --watchdog
// (default DefaultWatchdog) whatever happens, so no fake outlives a run.
// --list prints the cases. Bad flags exit 2 with a message on stderr.
func Main(args []string) int {
	o, err := ParseArgs(args, os.Stdout)
	if code, done := usage.Exit(err, os.Stderr, ""); done {
		return code
	}
	if o.Case == "--list" {
		printCases(os.Stdout)
		return 0
	}
	b, err := build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rec, err := OpenRecorder(o.Record)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeserver: %v; check --record\n", err)
		return 2
	}
	defer rec.Close()
	handleSignals(b, rec)
	startWatchdog(o.Watchdog, rec)
	rec.Record(Event{Type: EventStart, PID: os.Getpid(), Detail: o.Case})
	return serve(context.Background(), o, b, os.Stdin, os.Stdout, os.Stderr, rec)
}

// handleSignals records SIGTERM and exits 0 on it unless the case ignores
// it. SIGPIPE is caught too, so that a write to a pipe the client closed
// fails (and is recorded) instead of killing the fake.
func handleSignals(b *behaviour, rec *Recorder) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		for range term {
			rec.Record(Event{Type: EventSigterm})
			if !b.ignoreSigterm {
				os.Exit(0)
			}
			rec.Note("ignoring SIGTERM")
		}
	}()
}

// startWatchdog exits 0 after d (DefaultWatchdog when 0), whatever the case
// is doing.
func startWatchdog(d time.Duration, rec *Recorder) {
	if d <= 0 {
		d = DefaultWatchdog
	}
	time.AfterFunc(d, func() {
		rec.Exit("watchdog")
		os.Exit(0)
	})
}

// printCases writes one line per case: its ID and what it does.
func printCases(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range Cases() {
		desc := c.Description
		if c.Internal {
			desc = "(internal) " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\n", c.ID, desc)
	}
	_ = tw.Flush()
}
