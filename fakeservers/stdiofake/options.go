package stdiofake

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/usage"
)

// Options select and parameterise one fake server. A zero field means the
// case's default, or nothing (no record, no marker). The same values travel
// as command-line flags (Args, ParseArgs) when the fake runs as a
// subprocess: `mcpconform fakeserver --case ID --record FILE …`.
type Options struct {
	Case   string // a case ID from Cases
	Record string // the record file (JSON lines); empty: record nothing

	Lines    int           // text lines to write (banner cases); banner-bytes: the most lines to use
	Bytes    int64         // bytes to write: banner bytes (newlines included) or stderr flood size
	Marker   string        // a unique marker to embed (banner text, stderr secret)
	Shape    string        // damaged-line shape or non-object value
	Delay    time.Duration // slow start, grandchild marker delay, reverse-order gathering window
	Tools    int           // number of tools to offer (where the case offers several)
	File     string        // marker file (grandchild) or script file (script)
	When     string        // "before" or "during" (stderr flood)
	Watchdog time.Duration // self-exit after this long, whatever happens; 0 means DefaultWatchdog
	RefURL   string        // output-schema: the base URL its remote $ref points under

	// Era is the protocol era the fake serves (fakeservers.Era); empty
	// means legacy. Every case serves every era.
	Era fakeservers.Era
	// StrictInit makes a legacy fake refuse every request before
	// initialize, server/discover included, with -32600
	// (fakeservers.NotInitialized) instead of -32601.
	StrictInit bool
}

// DefaultWatchdog ends any fake that is still running after this long.
const DefaultWatchdog = 60 * time.Second

// Args renders the options as command-line flags for `mcpconform fakeserver`.
func (o Options) Args() []string {
	args := []string{"--case", o.Case}
	add := func(name, v string) { args = append(args, "--"+name, v) }
	if o.Record != "" {
		add("record", o.Record)
	}
	if o.Lines != 0 {
		add("lines", strconv.Itoa(o.Lines))
	}
	if o.Bytes != 0 {
		add("bytes", strconv.FormatInt(o.Bytes, 10))
	}
	if o.Marker != "" {
		add("marker", o.Marker)
	}
	if o.Shape != "" {
		add("shape", o.Shape)
	}
	if o.Delay != 0 {
		add("delay", o.Delay.String())
	}
	if o.Tools != 0 {
		add("tools", strconv.Itoa(o.Tools))
	}
	if o.File != "" {
		add("file", o.File)
	}
	if o.When != "" {
		add("when", o.When)
	}
	if o.Watchdog != 0 {
		add("watchdog", o.Watchdog.String())
	}
	if o.RefURL != "" {
		add("ref-url", o.RefURL)
	}
	if o.Era != "" {
		add("era", string(o.Era))
	}
	if o.StrictInit {
		args = append(args, "--strict-init")
	}
	return args
}

var help = usage.Help{
	Command:  "mcpconform fakeserver",
	Synopsis: []string{"--case ID [--record FILE] [flags]", "--list"},
	About: `
One fake stdio server, scripted to do one hard thing (a banner, a damaged
line, a stderr flood, a grandchild, …) on this process's stdin and stdout:
what the client checks give an adapter to launch. It records what the
client did to --record and exits by itself after --watchdog.`,
	Examples: []string{
		"mcpconform fakeserver --list",
		"mcpconform fakeserver --case well-behaved --record record.jsonl",
	},
}

// ParseArgs reads options from command-line flags; errors name the flag, the
// value and the list of cases. -h writes the help to stdout.
func ParseArgs(args []string, stdout io.Writer) (Options, error) {
	var o Options
	fs := usage.NewFlagSet("fakeserver")
	fs.StringVar(&o.Case, "case", "", "the fake's case ID (see --list)")
	fs.StringVar(&o.Record, "record", "", "file to append the record of what the fake saw (JSON lines)")
	fs.IntVar(&o.Lines, "lines", 0, "text lines to write")
	fs.Int64Var(&o.Bytes, "bytes", 0, "bytes to write")
	fs.StringVar(&o.Marker, "marker", "", "unique marker to embed")
	fs.StringVar(&o.Shape, "shape", "", "damaged-line shape or non-object value")
	fs.DurationVar(&o.Delay, "delay", 0, "delay")
	fs.IntVar(&o.Tools, "tools", 0, "number of tools to offer")
	fs.StringVar(&o.File, "file", "", "marker file or script file")
	fs.StringVar(&o.When, "when", "", "before or during")
	fs.DurationVar(&o.Watchdog, "watchdog", 0, "self-exit after this long (default 60s)")
	fs.StringVar(&o.RefURL, "ref-url", "", "output-schema: the base URL its remote $ref points under (2026-07-28 era)")
	era := fs.String("era", "", "the protocol era served: legacy (the default), modern (2026-07-28 only) or dual")
	fs.BoolVar(&o.StrictInit, "strict-init", false, "legacy era: refuse every request before initialize, server/discover included, with -32600")
	list := fs.Bool("list", false, "list the cases and exit")
	if err := help.Parse(fs, args, stdout); err != nil {
		return o, fmt.Errorf("fakeserver: %w", err)
	}
	if *list {
		return Options{Case: "--list"}, nil
	}
	e, err := fakeservers.ParseEra(*era)
	if err != nil {
		return o, fmt.Errorf("fakeserver: --era: %w", err)
	}
	o.Era = e
	if o.Case == "" {
		return o, fmt.Errorf("fakeserver: --case is required; cases: %s", strings.Join(CaseIDs(), ", "))
	}
	if _, ok := cases[o.Case]; !ok {
		return o, fmt.Errorf("fakeserver: unknown case %q; cases: %s", o.Case, strings.Join(CaseIDs(), ", "))
	}
	return o, nil
}

// CaseIDs lists the registered case IDs in order.
func CaseIDs() []string {
	return slices.Sorted(maps.Keys(cases))
}
