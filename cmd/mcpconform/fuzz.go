package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/certify"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/usage"
)

// mcpconform fuzz and replay: their flags, the signals that stop them and
// their exit statuses; the runs are package certify's (Fuzz, Replay).

func fuzzCommand(args []string, stdout, stderr io.Writer) int {
	o, err := parseFuzzFlags(args, stdout)
	if err != nil {
		return exitFor(err, stderr)
	}
	stdout, stderr = certify.Masked(stdout, o.Mask), certify.Masked(stderr, o.Mask)
	ctx, cancel, caughtSignal := signalContext()
	defer cancel()
	found, err := certify.Fuzz(ctx, *o, stdout)
	switch {
	case err != nil:
		return exitFor(err, stderr)
	case found:
		return 1
	case ctx.Err() != nil:
		return 128 + int(caughtSignal())
	}
	return 0
}

// parseFuzzFlags reads mcpconform fuzz's flags: the run's options, the
// --expected-failures file's fuzz: section, the masked --secret values.
func parseFuzzFlags(args []string, stdout io.Writer) (*certify.FuzzOptions, error) {
	o := &certify.FuzzOptions{}
	var expected string
	var secrets certify.SecretList
	fs := usage.NewFlagSet("fuzz")
	fs.Int64Var(&o.Seed, "seed", 0, "the seed (0: one from the clock, printed)")
	fs.DurationVar(&o.Duration, "duration", time.Minute, "how long to search (0: no bound by time)")
	fs.IntVar(&o.Iterations, "iterations", 0, "how many sequences to run (0: no bound by count)")
	fs.IntVar(&o.Workers, "workers", 1, "sequences run side by side, each on its own connection")
	rss := fs.String("max-rss", "256MiB", "the most resident memory the server's process group may hold (stdio); 0 turns the check off")
	fs.DurationVar(&o.Timeout, "timeout", fuzz.DefaultTimeout, "how long a request's answer may take")
	fs.StringVar(&o.Fixtures, "fixtures", "", "YAML `FILE`: its slow role names the tool called only with its cancel; unsafe: [TOOL, …] are never called")
	fs.Var(&o.CallTools, "call-tools", certify.CallToolsUsage)
	fs.StringVar(&o.Tools, "tools", "", "fuzz only these comma-separated tools")
	fs.StringVar(&o.Corpus, "corpus", "corpus", "the directory a finding's minimal case is saved to")
	fs.StringVar(&o.JSONPath, "json", "", "write the JSON report to `FILE`")
	fs.StringVar(&o.JUnitPath, "junit", "", "write a JUnit report to `FILE`")
	fs.StringVar(&o.URL, "url", "", "fuzz the streamable HTTP server at `URL`")
	fs.IntVar(&o.MaxFindings, "max-findings", 0, "end the run once `N` new groups of findings are found (0: no bound; known ones do not count)")
	fs.StringVar(&expected, "expected-failures", "", "the expected-failures baseline (YAML) `FILE`: the signatures under its fuzz: list are known findings, reported with their reason and failing nothing")
	fs.StringVar(&o.Profile, "profile", "", "the invariants that bind: spec (the specification's; default for a server you name) or hardened (max-rss, no-leftovers and no-response-after-cancel too; default for the built-in reference)")
	fs.BoolVar(&o.Bench, "bench", false, "measure instead of hunting: the ping ceiling and the fuzzer's executions/s with 1 and 2 workers, a quarter of --duration each")
	fs.Var(&secrets, "secret", certify.SecretFlagUsage)
	rest, command := splitCommand(args)
	if err := fuzzHelp.Parse(fs, rest, stdout); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, errUsage{fmt.Errorf("fuzz: unexpected argument %q; put the server command after --", fs.Arg(0))}
	}
	o.Command = command
	o.Mask = certify.RunSecrets(secrets, o.URL)
	n, err := parseBytes(*rss)
	if err != nil {
		return nil, errUsage{fmt.Errorf("fuzz: --max-rss %q: %v; write e.g. 256MiB, 1GiB or 0", *rss, err)}
	}
	o.MaxRSS = n
	switch {
	case o.URL != "" && len(o.Command) > 0:
		return nil, errUsage{errors.New("fuzz: give either --url or a command after --, not both")}
	case o.Duration < 0 || o.Iterations < 0 || o.MaxFindings < 0 || o.Workers < 1 || o.Timeout <= 0:
		return nil, errUsage{fmt.Errorf("fuzz: --duration (%s), --iterations (%d) and --max-findings (%d) must not be negative, --workers (%d) and --timeout (%s) must be positive", o.Duration, o.Iterations, o.MaxFindings, o.Workers, o.Timeout)}
	case o.Profile != "" && o.Profile != string(check.SpecProfile) && o.Profile != string(check.HardenedProfile):
		return nil, errUsage{fmt.Errorf("fuzz: --profile %q: write spec or hardened", o.Profile)}
	case o.Duration == 0 && o.Iterations == 0:
		return nil, errUsage{errors.New("fuzz: --duration 0 needs --iterations N, or the run would never end")}
	}
	if o.Profile == "" {
		o.Profile = string(check.SpecProfile)
		if o.URL == "" && len(o.Command) == 0 {
			o.Profile = string(check.HardenedProfile)
		}
	}
	if expected != "" {
		b, err := report.LoadBaseline(expected)
		if err != nil {
			return nil, errUsage{fmt.Errorf("fuzz: %w", err)}
		}
		o.Known = b.Fuzz()
	}
	if o.Seed == 0 {
		o.Seed = time.Now().UnixNano() % 1_000_000_000
	}
	return o, nil
}

// splitCommand splits args at the first "--".
func splitCommand(args []string) (flags, command []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// parseBytes reads 256MiB, 1GiB, 512KiB, 1000000.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("not a size")
	}
	return n * mult, nil
}

// signalContext is a context that SIGINT or SIGTERM ends, and the signal
// that ended it (SIGINT until one has).
func signalContext() (context.Context, context.CancelFunc, func() syscall.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Int32
	got.Store(int32(syscall.SIGINT))
	go func() {
		select {
		case s := <-sigs:
			if ss, ok := s.(syscall.Signal); ok {
				got.Store(int32(ss))
			}
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel() }, func() syscall.Signal { return syscall.Signal(got.Load()) }
}
