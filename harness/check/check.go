// Package check is the check catalogue: what a check is (its descriptor),
// the outcome classes, and the registry the suites fill and the CLI lists and
// selects from.
package check

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Level is the strength of the rule a check enforces; it decides FAIL versus WARN.
type Level string

// Levels.
const (
	MUST   Level = "MUST"
	SHOULD Level = "SHOULD"
	MAY    Level = "MAY"
)

// Role is the side under test.
type Role string

// Roles.
const (
	Client Role = "client"
	Server Role = "server"
)

// Transport is the transport a check runs on.
type Transport string

// Transports.
const (
	Stdio Transport = "stdio"
	HTTP  Transport = "http"
	Any   Transport = "any"
)

// Era is the protocol era a check applies to.
type Era string

// Eras.
const (
	Legacy Era = "legacy" // 2025-03-26 … 2025-11-25
	Modern Era = "modern" // 2026-07-28
)

// The era lists of descriptors: the modern era alone, and both eras.
var (
	ModernEra = []Era{Modern}
	BothEras  = []Era{Legacy, Modern}
)

// Descriptor describes one check: one rule, tested one way.
type Descriptor struct {
	ID          string   // stable slug: dots and dashes, never a slash
	Title       string   // what the harness does
	Requirement string   // the rule in one sentence, printed on failure
	Rules       []string // requirement IDs: ST-03, NG-03, …
	Level       Level    // MUST, SHOULD or MAY; empty: the level of its first binding rule
	// Source says where the rule comes from: spec when a cited rule of the
	// MCP specification binds the role under test in the check's era, else
	// hardened (a seed behaviour). Register sets it from the rules, unless
	// the descriptor names it hardened: a defence beyond the specification
	// that the spec rules it cites motivate but none asks for.
	Source     Source
	Role       Role          // client or server
	Transport  Transport     // stdio, http or any
	Eras       []Era         // empty means legacy
	Capability string        // the capability that gates it, if any
	KilledBy   []mutant.Name // mutants of the reference implementation this check must kill
	Property   bool          // a gopter property check (seeded)
	// Fuzz marks a fuzz check (seeded random cases, kind:fuzz): it runs
	// only when the run asks for fuzzing (mcpconform client --fuzz).
	Fuzz bool
	// Serial marks a check that cannot share its target with another check
	// in flight (it changes what every session of the server sees, or
	// judges the whole target): with --parallel it runs alone when the run
	// certifies a server at a URL; over stdio each check has a server of
	// its own.
	Serial bool
	// TakesCensus marks a check that calls every tool the run's policy
	// lets it: against a server at a URL of the user's it learns which
	// tools are slow from the run's tool census (run.CensusSlow) instead
	// of waiting out the tool budget on each, and runs after the checks
	// that do not, by which time the census is taken.
	TakesCensus bool
	// Waits are the waits it spends on a conformant implementation (quiet
	// windows, the budget of a slow tool call; the client's timeouts and
	// graces it provokes, the delays it scripts), each with its setting.
	Waits []Wait
}

// Labels returns the Ginkgo labels that carry the descriptor.
func (d Descriptor) Labels() []string {
	ls := []string{"id:" + d.ID, "level:" + string(d.Level), "source:" + string(d.Source), "role:" + string(d.Role), "transport:" + string(d.Transport)}
	for _, r := range d.Rules {
		ls = append(ls, "rule:"+r)
	}
	for _, e := range d.EraList() {
		ls = append(ls, "era:"+string(e))
	}
	if d.Property {
		ls = append(ls, "kind:property")
	}
	if d.Fuzz {
		ls = append(ls, FuzzLabel)
	}
	return ls
}

// FuzzLabel is the label of the fuzz checks.
const FuzzLabel = "kind:fuzz"

// EraList returns the eras, defaulting to legacy.
func (d Descriptor) EraList() []Era {
	if len(d.Eras) == 0 {
		return []Era{Legacy}
	}
	return d.Eras
}

var idPattern = regexp.MustCompile(`^[a-z0-9]+(?:[.-][a-z0-9]+)*$`)

// Validate reports a descriptor that cannot be registered.
func (d Descriptor) Validate() error {
	switch {
	case !idPattern.MatchString(d.ID):
		return fmt.Errorf("check ID %q: use lower-case words joined by dots and dashes", d.ID)
	case d.Title == "" || d.Requirement == "":
		return fmt.Errorf("check %s: title and requirement are required", d.ID)
	case len(d.Rules) == 0:
		return fmt.Errorf("check %s: name at least one rule ID", d.ID)
	case d.Level != MUST && d.Level != SHOULD && d.Level != MAY:
		return fmt.Errorf("check %s: level %q is not MUST, SHOULD or MAY", d.ID, d.Level)
	case d.Role != Client && d.Role != Server:
		return fmt.Errorf("check %s: role %q is not client or server", d.ID, d.Role)
	case d.Transport != Stdio && d.Transport != HTTP && d.Transport != Any:
		return fmt.Errorf("check %s: transport %q is not stdio, http or any", d.ID, d.Transport)
	case len(d.KilledBy) == 0:
		return fmt.Errorf("check %s: name the mutant that kills it", d.ID)
	}
	for _, w := range d.Waits {
		if err := w.validate(d); err != nil {
			return err
		}
	}
	return nil
}

var (
	mu       sync.Mutex
	registry = map[string]Descriptor{}
)

// Register adds a descriptor to the catalogue, its level and source
// resolved from its rules (Resolve). It panics on an invalid or duplicate
// descriptor: both are programming errors found by any test run.
func Register(d Descriptor) Descriptor {
	d, err := d.Resolve()
	if err == nil {
		err = d.Validate()
	}
	if err != nil {
		panic(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[d.ID]; dup {
		panic(fmt.Sprintf("check %s registered twice", d.ID))
	}
	registry[d.ID] = d
	return d
}

// All returns every registered descriptor, sorted by ID.
func All() []Descriptor {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Descriptor, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns the descriptor with the given ID.
func Lookup(id string) (Descriptor, bool) {
	mu.Lock()
	defer mu.Unlock()
	d, ok := registry[id]
	return d, ok
}

// KilledBy returns the IDs of the checks that name m as a killer.
func KilledBy(m mutant.Name) []string {
	var ids []string
	for _, d := range All() {
		for _, k := range d.KilledBy {
			if k == m {
				ids = append(ids, d.ID)
			}
		}
	}
	return ids
}

// ParseIDList splits a comma-separated list of check IDs and reports any that
// is not in the catalogue.
func ParseIDList(s string) ([]string, error) {
	var ids []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if _, ok := Lookup(f); !ok {
			return nil, fmt.Errorf("unknown check ID %q; `mcpconform list` shows the catalogue", f)
		}
		ids = append(ids, f)
	}
	return ids, nil
}
