package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

func init() { run.SetFixtureFinder(discoverFixtures) }

// The fixtures discovery (run.DiscoverFixtures): for each behaviour the
// fixtures file does not map and no official fixture name gives, it calls
// the tools the run's policy lets checks call, each once, on a connection
// of its own (a fresh process over stdio, a fresh session over HTTP) at
// once after the handshake, with brief schema-valid arguments
// (instance.Brief) and a progress token, and records what the tool sent
// before its result: progress for the token, log messages, requests to the
// client. A tool that answers no result within the run's patience shows
// nothing (the checks would wait for it in vain): its call is cancelled.

// declaration is one set of client capabilities the pass calls tools
// under, and the roles a call under it can show: progress and logging as
// the checks of those roles call them (declaring nothing), the requests to
// the client as those checks call them (declaring what allows them).
type declaration struct {
	name  string
	caps  map[string]any
	roles []string
}

var declarations4Discovery = []declaration{
	{"no client capability", nil, []string{"progress", "logging"}},
	{"sampling, form and URL elicitation, and roots", map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}, "roots": map[string]any{}},
		[]string{"sampling", "elicitation", "elicitation-url", "roots"}},
}

// discoverFixtures is the run's fixtures discovery (run.FixtureFinder).
func discoverFixtures(ctx context.Context, cfg run.Options) run.Discovery {
	t, why := discoveryTransport(cfg)
	if why != "" {
		return run.Discovery{Why: why}
	}
	d := run.Discovery{Transport: t}
	var toFind []string
	for _, role := range run.DiscoverableRoles {
		if _, mapped := cfg.Fixtures[role]; !mapped {
			toFind = append(toFind, role)
		}
	}
	if len(toFind) == 0 {
		d.Why = "the fixtures file maps every behaviour a call shows"
		return d
	}
	var trials []*trial
	refused := map[string][]refusal{} // by role: the tools left alone that its calls would have tried
	listed := listUnder(ctx, cfg, t, toFind)
	for i, decl := range declarations4Discovery {
		roles := slices.DeleteFunc(slices.Clone(decl.roles), func(r string) bool { return !slices.Contains(toFind, r) })
		if len(roles) == 0 {
			continue
		}
		if err := listed[i].err; err != nil {
			d.Why = fmt.Sprintf("declaring %s over %s, %v", decl.name, t, err)
			return d
		}
		for n, tool := range candidates(&d, cfg, listed[i].tools, roles, refused) {
			if n >= cfg.DiscoveryTools {
				d.Over = append(d.Over, tool.Name)
				continue
			}
			trials = append(trials, &trial{decl: decl, tool: tool, args: instance.Brief(tool.InputSchema)})
		}
	}
	runTrials(ctx, cfg, t, trials)
	for _, tr := range trials {
		d.Called = append(d.Called, tr.tool.Name)
		if tr.late {
			d.Unanswered = append(d.Unanswered, tr.tool.Name)
		}
	}
	d.Called, d.Unanswered = sortedSet(d.Called), sortedSet(d.Unanswered)
	for _, role := range toFind {
		if _, ok := d.For(role); ok {
			continue
		}
		if f, ok := bestTrial(trials, role); ok {
			d.Found = append(d.Found, f)
			continue
		}
		for _, tr := range trials {
			if tr.shown[role] > 0 {
				d.Near = append(d.Near, run.Near{Role: role, Tool: tr.tool.Name, Problem: tr.problem})
			}
		}
		for _, r := range refused[role] {
			if hints(r.tool, role) {
				d.Hints = append(d.Hints, run.Hint{Role: role, LeftAlone: toolpolicy.LeftAlone{Name: r.tool.Name, Why: r.why}})
			}
		}
	}
	slices.SortStableFunc(d.Found, func(a, b run.Found) int {
		return cmp.Compare(slices.Index(run.DiscoverableRoles, a.Role), slices.Index(run.DiscoverableRoles, b.Role))
	})
	if len(trials) == 0 && len(d.Found) < len(toFind) {
		d.Why = "no tool that may be called was left to try"
	}
	d.LeftAlone = slices.CompactFunc(d.LeftAlone, func(a, b toolpolicy.LeftAlone) bool { return a.Name == b.Name })
	return d
}

// refusal is a tool the run's policy left alone, and why.
type refusal struct {
	tool mcp.Tool
	why  string
}

// candidates takes the tools listed under a declaration whose roles are
// sought: a role that an official fixture name the policy allows gives is
// found (d.Found); a tool the policy leaves alone is noted (d.LeftAlone)
// for each role still sought (refused); and the others are returned, those
// whose name or description suggests a role sought first, so that the tool
// budget goes to them. A tool the fixtures file or an official name
// already gives a role is no candidate, nor is the slow tool.
func candidates(d *run.Discovery, cfg run.Options, tools []mcp.Tool, roles []string, refused map[string][]refusal) []mcp.Tool {
	policy := cfg.ToolPolicy()
	roles = slices.DeleteFunc(slices.Clone(roles), func(role string) bool {
		for _, f := range officialFixtures[role] {
			i := slices.IndexFunc(tools, func(t mcp.Tool) bool { return t.Name == f.Tool })
			if i < 0 {
				continue
			}
			if ok, _ := policy.Allows(tools[i]); ok {
				d.Found = append(d.Found, run.Found{Role: role, Fixture: f, Tool: tools[i], Official: true,
					How: fmt.Sprintf("offered under its official fixture name %s", f.Tool)})
				return true
			}
		}
		return false
	})
	if len(roles) == 0 {
		return nil
	}
	var out []mcp.Tool
	for _, tool := range tools {
		ok, why := policy.Allows(tool)
		switch {
		case fixtureTool(cfg, tool.Name):
		case !ok:
			d.LeftAlone = append(d.LeftAlone, toolpolicy.LeftAlone{Name: tool.Name, Why: why})
			for _, role := range roles {
				refused[role] = append(refused[role], refusal{tool, why})
			}
		default:
			out = append(out, tool)
		}
	}
	slices.SortStableFunc(out, func(a, b mcp.Tool) int {
		return boolFirst(slices.ContainsFunc(roles, func(r string) bool { return hints(a, r) }), slices.ContainsFunc(roles, func(r string) bool { return hints(b, r) }))
	})
	return out
}

// fixtureTool says whether the fixtures file or an official fixture name
// gives name a role, or it is the slow tool (which never answers on its
// own): no call of the pass's.
func fixtureTool(cfg run.Options, name string) bool {
	for _, f := range cfg.Fixtures {
		if f.Tool == name {
			return true
		}
	}
	for _, fs := range officialFixtures {
		if slices.ContainsFunc(fs, func(f run.Fixture) bool { return f.Tool == name }) {
			return true
		}
	}
	return slices.Contains(run.SlowTools(cfg.Fixtures), name)
}

// boolFirst orders true before false.
func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// sortedSet is names sorted, each once.
func sortedSet(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}

// discoveryTransport is the transport the pass calls tools over: stdio
// when the run names a command (each call a process of its own, which
// keeps no state of the pass's calls), else HTTP; only one whose server
// serves the legacy era, whose tool calls the checks of these roles make.
func discoveryTransport(cfg run.Options) (check.Transport, string) {
	var serves []check.Transport
	if len(cfg.ServerCommand) > 0 {
		serves = append(serves, check.Stdio)
	}
	if cfg.ServerURL != "" {
		serves = append(serves, check.HTTP)
	}
	if len(serves) == 0 {
		return "", "the run names no server"
	}
	for _, t := range serves {
		if e := run.ProbeServer(t); e.Legacy || !e.Modern {
			return t, ""
		}
	}
	return "", "the server serves no legacy era, whose tool calls the checks of these behaviours make"
}

// listing is the tools a declaration lists, or why they could not be
// listed.
type listing struct {
	tools []mcp.Tool
	err   error
}

// listUnder lists the tools under each declaration that has a role of
// toFind, the declarations at once, each on a connection of its own.
func listUnder(ctx context.Context, cfg run.Options, t check.Transport, toFind []string) []listing {
	out := make([]listing, len(declarations4Discovery))
	var wg sync.WaitGroup
	for i, decl := range declarations4Discovery {
		if !slices.ContainsFunc(decl.roles, func(r string) bool { return slices.Contains(toFind, r) }) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].tools, out[i].err = discoveryTools(ctx, cfg, t, decl)
		}()
	}
	wg.Wait()
	return out
}

// discoveryTools lists the tools the server offers to a client that
// declares decl, on a connection of its own, every page within the
// run's patience.
func discoveryTools(ctx context.Context, cfg run.Options, t check.Transport, decl declaration) ([]mcp.Tool, error) {
	c, err := openDiscovery(ctx, cfg, t, decl)
	if err != nil {
		return nil, err
	}
	defer c.close()
	walk, cancel := context.WithTimeout(ctx, cfg.Patience)
	defer cancel()
	raws, err := walkTools(walk, c, decl.reply(nil))
	if err != nil {
		return nil, err
	}
	var tools []mcp.Tool
	for _, raw := range raws {
		var tool mcp.Tool
		if json.Unmarshal(raw, &tool) == nil && tool.Name != "" {
			tools = append(tools, tool)
		}
	}
	return tools, nil
}

// openDiscovery connects to the server over t, runs the handshake
// declaring decl and then pings it, within the start-up budget and the
// patience: what a server sends of its own accord once initialized (a
// roots/list, a log line) comes before its answer to the ping, not during
// the call that follows, which it would seem to belong to.
func openDiscovery(ctx context.Context, cfg run.Options, t check.Transport, decl declaration) (conn, error) {
	c, err := dial(cfg, t, nil)
	if err != nil {
		return nil, fmt.Errorf("the server could not be started: %v", err)
	}
	start, cancel := context.WithTimeout(ctx, cfg.StartupBudget(run.ProbedEras()[t].Startup)+cfg.Patience)
	defer cancel()
	if _, err := handshake(start, c, decl.caps, decl.reply(nil)); err != nil {
		c.close()
		return nil, err
	}
	if m, err := exchange(start, c, jsonrpc.StringID("mcpconform-discovery-ping"), "ping", nil, decl.reply(nil)); err != nil {
		c.close()
		return nil, fmt.Errorf("its ping was not answered (%s)", why(m, err))
	}
	return c, nil
}
