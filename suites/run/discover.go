package run

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

// Fixtures found by behaviour: where neither the fixtures file nor an
// official fixture name gives the tool that shows a behaviour, a discovery
// pass calls the tools the run's policy lets checks call, once each, and
// watches what each does (progress for the call's token, log messages,
// requests to the client). It runs once per run, in the pre-flight (or for
// the first check that needs it), and every check, in every worker of a
// parallel run, uses what it found (Handoff).

// DiscoverableRoles are the fixture roles a tool shows by what it sends
// during one call: what a discovery pass looks for. A failing, slow or
// input-required tool is never inferred; those roles come from the
// fixtures file and the official names alone.
var DiscoverableRoles = []string{"progress", "logging", "sampling", "elicitation", "elicitation-url", "roots"}

// Found is the tool that shows a fixture role, and how the run learnt it.
type Found struct {
	Role    string  `json:"role"`
	Fixture Fixture `json:"fixture"`
	// Tool is the tool as tools/list described it: the policy reads its
	// annotations.
	Tool mcp.Tool `json:"tool"`
	// How says how it was found, for the reports: "found by calling X: it
	// sent …", or "offered under its official fixture name".
	How string `json:"how"`
	// Official: the tool bears the role's official fixture name, so the
	// checks find it by that name, and a fixtures file need not map it.
	Official bool `json:"official,omitempty"`
}

// Discovery is what the run's discovery pass learnt.
type Discovery struct {
	// Transport is the one the pass called tools over.
	Transport check.Transport `json:"transport,omitempty"`
	// Found are the roles that have a tool, in DiscoverableRoles order
	// (then the other roles' official names), one tool each.
	Found []Found `json:"found,omitempty"`
	// Hints are, for a role no tool it called showed, the tools the policy
	// left alone whose name or description suggests the role: the tools a
	// check of that role would call, and why it may not.
	Hints []Hint `json:"hints,omitempty"`
	// Near are the tools that showed a role no tool serves, but whose call
	// did not end with a result in time: a fixtures file can map one with
	// other arguments.
	Near []Near `json:"near,omitempty"`
	// LeftAlone are the tools it did not call because the policy left
	// them alone.
	LeftAlone []toolpolicy.LeftAlone `json:"left_alone,omitempty"`
	// Called are the tools the pass called; Unanswered those of them that
	// did not answer within the run's patience (cancelled then); Over those
	// it left uncalled, past its tool budget.
	Called     []string `json:"called,omitempty"`
	Unanswered []string `json:"unanswered,omitempty"`
	Over       []string `json:"over,omitempty"`
	// Why the pass called no tool, when it called none.
	Why string `json:"why,omitempty"`
}

// Hint is a tool left alone that would show role, by its name or
// description.
type Hint struct {
	Role string `json:"role"`
	toolpolicy.LeftAlone
}

// Near is a tool that showed role when called, and what then went wrong.
type Near struct {
	Role    string `json:"role"`
	Tool    string `json:"tool"`
	Problem string `json:"problem"`
}

// NearFor says which tools showed role but did not serve it, and why:
// "X (no answer within 5s …)", or "".
func (d Discovery) NearFor(role string) string {
	var out []string
	for _, n := range d.Near {
		if n.Role == role {
			out = append(out, n.Tool+" ("+n.Problem+")")
		}
	}
	return strings.Join(out, ", ")
}

// HintsFor returns the tools left alone that would show role.
func (d Discovery) HintsFor(role string) []toolpolicy.LeftAlone {
	var out []toolpolicy.LeftAlone
	for _, h := range d.Hints {
		if h.Role == role {
			out = append(out, h.LeftAlone)
		}
	}
	return out
}

// For returns what the pass found for role.
func (d Discovery) For(role string) (Found, bool) {
	i := slices.IndexFunc(d.Found, func(f Found) bool { return f.Role == role })
	if i < 0 {
		return Found{}, false
	}
	return d.Found[i], true
}

// FixtureFinder is the discovery pass over the server of cfg; the server
// suite installs it (SetFixtureFinder). It ends when ctx does.
type FixtureFinder func(ctx context.Context, cfg Options) Discovery

var (
	discoveryMu     sync.Mutex
	fixtureFinder   FixtureFinder
	discovery       *Discovery
	discoveryRunner sync.Mutex // held while a pass runs, so it runs once
)

// SetFixtureFinder installs the finder; call it from a suite's init.
func SetFixtureFinder(f FixtureFinder) {
	discoveryMu.Lock()
	defer discoveryMu.Unlock()
	fixtureFinder = f
}

// DiscoverFixtures returns the run's discovery, running the pass first
// unless this run already did (or was given its coordinator's, Handoff):
// what the pre-flight calls, once the era probes are done.
func DiscoverFixtures() Discovery {
	discoveryRunner.Lock()
	defer discoveryRunner.Unlock()
	discoveryMu.Lock()
	d, finder := discovery, fixtureFinder
	discoveryMu.Unlock()
	if d != nil {
		return *d
	}
	found := Discovery{Why: "no discovery pass is installed"}
	if finder != nil {
		found = finder(runContext(), Current())
	}
	for _, name := range found.Called {
		toolUse.Called(name)
	}
	for _, l := range found.LeftAlone {
		toolUse.LeftAlone(l.Name, l.Why)
	}
	discoveryMu.Lock()
	discovery = &found
	discoveryMu.Unlock()
	return found
}

// givenDiscovery makes d this run's discovery (a worker's, from its
// coordinator's Handoff).
func givenDiscovery(d *Discovery) {
	discoveryMu.Lock()
	defer discoveryMu.Unlock()
	discovery = d
}

// takenDiscovery is this run's discovery if the pass ran, else nil.
func takenDiscovery() *Discovery {
	discoveryMu.Lock()
	defer discoveryMu.Unlock()
	return discovery
}

// resetDiscovery forgets the discovery, for a new run in this process.
func resetDiscovery() {
	discoveryMu.Lock()
	defer discoveryMu.Unlock()
	discovery = nil
}

// Discovery returns the run's discovery pass, running it if no one did.
func (c *C) Discovery() Discovery { return DiscoverFixtures() }

// FixturesFound is what the run's discovery found, for the reports: which
// tool serves which role and how it was learnt; nil when no pass ran.
func FixturesFound() []toolpolicy.FoundFixture {
	d := takenDiscovery()
	if d == nil {
		return nil
	}
	var out []toolpolicy.FoundFixture
	for _, f := range d.Found {
		out = append(out, toolpolicy.FoundFixture{Role: f.Role, Tool: f.Fixture.Tool, How: f.How})
	}
	return out
}
