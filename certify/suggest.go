package certify

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/usage"
	"github.com/mcpconform/mcpconform/suites/run"
)

var fixturesHelp = usage.Help{
	Command: "mcpconform fixtures",
	Synopsis: []string{
		"--suggest [flags] -- CMD…   the fixtures file for the stdio server CMD…",
		"--suggest [flags] --url U   the fixtures file for the streamable HTTP server at U",
	},
	About: `
With --suggest, prints (on standard output) the fixtures file that
mcpconform server would use against the server: the behaviours --fixtures
maps, and those the fixtures discovery finds by calling, once each, the
tools the safe-calling default (or --call-tools) lets checks call. What
each line says it found, and which tools left alone a behaviour's checks
would call, goes to standard error. The output loads with --fixtures;
naming a tool there lets the checks call it whatever its annotations.`,
	Examples: []string{
		"mcpconform fixtures --suggest -- node dist/index.js stdio > fixtures.yaml",
		"mcpconform fixtures --suggest --call-tools all --url http://127.0.0.1:3001/mcp > fixtures.yaml",
		"mcpconform server --fixtures fixtures.yaml -- node dist/index.js stdio",
	},
}

// Fixtures is `mcpconform fixtures --suggest`: it probes the server and
// runs the fixtures discovery as a server run's pre-flight does, then
// prints the fixtures file the run would use (SuggestedFixtures).
func Fixtures(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("fixtures")
	suggest := fs.Bool("suggest", false, "print the fixtures file (YAML) mcpconform server would use against the server")
	var callTools CallToolsFlag
	var secrets SecretList
	cfg := run.Options{}
	fixtures := fs.String("fixtures", "", "a fixtures `FILE` to start from: its mappings, unsafe: tools and call_tools: are kept")
	fs.StringVar(&cfg.ServerURL, "url", "", "the streamable HTTP endpoint of the server (instead of a stdio command after --)")
	fs.Var(&callTools, "call-tools", CallToolsUsage)
	fs.DurationVar(&cfg.Patience, "patience", run.DefaultPatience, "how long each call waits for the tool's result; a tool slower than that serves no behaviour (its checks would wait for it in vain)")
	fs.DurationVar(&cfg.ProbeTimeout, "probe-timeout", run.DefaultProbeTimeout, "how long the server has to answer its first handshake; also the least time each call gives it to start")
	fs.DurationVar(&cfg.CheckDeadline, "timeout", run.DefaultCheckDeadline, "how long an HTTP exchange with the server may take")
	fs.StringVar(&cfg.AuthTokenCommand, "auth-token-command", "", "a shell command line (`CMD`) that prints a bearer token for the server on its first stdout line, as for mcpconform server")
	fs.Var(&secrets, "secret", SecretFlagUsage)
	if err := fixturesHelp.Parse(fs, args, stdout); err != nil {
		return ExitFor(err, stderr)
	}
	cfg.ServerCommand = fs.Args()
	if err := fixturesUsage(*suggest, &cfg, args); err != nil {
		return ExitFor(UsageError{err}, stderr)
	}
	ff, err := LoadFixturesFile(*fixtures)
	if err != nil {
		return ExitFor(err, stderr)
	}
	cfg.Fixtures, cfg.Unsafe, cfg.CallTools, cfg.Protected = ff.Roles, ff.Unsafe, callTools.Over(ff), ff.Protected
	cfg.Secrets = RunSecrets(secrets, cfg.ServerURL)
	stdout, stderr = Masked(stdout, cfg.Secrets), Masked(stderr, cfg.Secrets)
	run.Configure(cfg)
	if err := probeTarget(run.Current()); err != nil {
		return ExitFor(err, stderr)
	}
	d := run.DiscoverFixtures()
	for _, line := range DiscoveryLines(d) {
		fmt.Fprintln(stderr, "mcpconform: fixtures: "+line)
	}
	out, err := SuggestedFixtures(ff, d, callTools.Over(ff))
	if err == nil {
		_, err = stdout.Write(out)
	}
	if err != nil {
		return ExitFor(err, stderr)
	}
	return 0
}

// fixturesUsage checks the fixtures command's flags and target.
func fixturesUsage(suggest bool, cfg *run.Options, args []string) error {
	if !suggest {
		return errors.New("fixtures: say what to do: --suggest prints the fixtures file a server run would use, e.g. mcpconform fixtures --suggest -- ./my-server")
	}
	if err := checkTarget("fixtures", "server", cfg.ServerURL, args, cfg.ServerCommand); err != nil {
		return err
	}
	switch {
	case cfg.ServerURL == "" && len(cfg.ServerCommand) == 0:
		return errors.New("fixtures: name the server: mcpconform fixtures --suggest -- CMD…, or --url URL")
	case cfg.ServerURL != "" && len(cfg.ServerCommand) > 0:
		return errors.New("fixtures: name one server: a command after -- or --url, not both")
	case cfg.Patience < run.MinPatience || cfg.ProbeTimeout <= 0 || cfg.CheckDeadline <= 0:
		return fmt.Errorf("fixtures: --patience must be %s or more, and --probe-timeout and --timeout positive; got %s, %s and %s", run.MinPatience, cfg.Patience, cfg.ProbeTimeout, cfg.CheckDeadline)
	}
	if len(cfg.ServerCommand) > 0 {
		if _, err := exec.LookPath(cfg.ServerCommand[0]); err != nil {
			return fmt.Errorf("fixtures: command %q not found: %v; give a path or a command on PATH after --", cfg.ServerCommand[0], err)
		}
	}
	return nil
}

// SuggestedFixtures is the fixtures file a server run with file and
// discovery d would use: each role file maps, and each d found by calling
// a tool, with a comment saying how; as comments, the roles served by an
// official fixture name (no entry needed), and those whose checks would
// call a tool left alone, with the way to allow it; file's unsafe:,
// call_tools: and protected: as they were. LoadFixturesFile reads it back
// to the same mappings.
func SuggestedFixtures(file FixturesFile, d run.Discovery, mode toolpolicy.Mode) ([]byte, error) {
	if mode == "" {
		mode = toolpolicy.ReadOnly
	}
	head := []string{fmt.Sprintf("Fixtures of mcpconform fixtures --suggest (call-tools %s%s); use with mcpconform server --fixtures FILE.", mode, over(string(d.Transport)))}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	for _, role := range fixtureRoles {
		f, mapped := file.Roles[role]
		found, ok := d.For(role)
		switch {
		case mapped:
			if err := addFixture(doc, role, f, "from the fixtures file given"); err != nil {
				return nil, err
			}
		case ok && found.Official:
			head = append(head, fmt.Sprintf("%s: %s; the checks find it by that name, no entry needed.", role, found.How))
		case ok:
			if err := addFixture(doc, role, found.Fixture, found.How); err != nil {
				return nil, err
			}
		}
		if near := d.NearFor(role); near != "" && !mapped && !ok {
			head = append(head, fmt.Sprintf("%s: shown by %s, without a result; map it with arguments that end it sooner.", role, near))
		}
		if hints := d.HintsFor(role); len(hints) > 0 && !mapped && !ok {
			head = append(head, fmt.Sprintf("%s: its checks would call a tool left alone: %s.", role, toolpolicy.Grouped(hints)))
		}
	}
	if err := addSettings(doc, file); err != nil {
		return nil, err
	}
	doc.HeadComment = strings.Join(head, "\n")
	return yaml.Marshal(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc}})
}

// over says the transport the discovery called tools over, for a comment.
func over(t string) string {
	if t == "" {
		return ""
	}
	return ", over " + t
}

// addFixture adds role: {tool: …, arguments: {…}} to doc, how as its
// comment.
func addFixture(doc *yaml.Node, role string, f run.Fixture, how string) error {
	var value yaml.Node
	if f.Arguments == nil {
		f.Arguments = map[string]any{}
	}
	if err := value.Encode(f); err != nil {
		return fmt.Errorf("fixtures: the arguments of %s: %w", f.Tool, err)
	}
	value.Style = yaml.FlowStyle
	doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: role, HeadComment: how}, &value)
	return nil
}

// addSettings adds file's unsafe:, call_tools: and protected: to doc, as
// it gave them.
func addSettings(doc *yaml.Node, file FixturesFile) error {
	settings := []struct {
		key   string
		given bool
		value any
	}{
		{"unsafe", len(file.Unsafe) > 0, file.Unsafe},
		{"call_tools", file.CallTools != "", string(file.CallTools)},
		{"protected", file.Protected, true},
	}
	for _, s := range settings {
		if !s.given {
			continue
		}
		var value yaml.Node
		if err := value.Encode(s.value); err != nil {
			return err
		}
		value.Style = yaml.FlowStyle
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s.key, HeadComment: "from the fixtures file given"}, &value)
	}
	return nil
}
