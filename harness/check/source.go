package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/rules"
)

// Source is where a check's rule comes from.
type Source = rules.Source

// Sources.
const (
	Spec     = rules.Spec     // the MCP specification binds the role under test
	Hardened = rules.Hardened // a seed behaviour beyond the specification
)

// Resolve returns the descriptor with its source and level following from
// its rules. Every rule must be in the rule table. A rule binds the check
// when it is a specification rule with a level, of the side under test, in
// one of the check's eras: then the source is spec, and the level is the
// descriptor's own (never stronger than the binding rules' text) or else
// the strongest level the first binding rule states. Without a binding rule
// the check must cite a seed rule: its source is hardened (the seeds'
// robustness profile, whichever side eases the other's discipline), its
// level MUST unless the descriptor names a weaker one. A rule of the other side never makes a
// check about coping with its breach a spec check. A descriptor that names
// the source hardened itself keeps it, its level MUST unless it names
// another: a defence beyond the specification, which the spec rules it
// cites motivate but none asks for (a Host check against DNS rebinding
// beside HT-03's Origin check).
func (d Descriptor) Resolve() (Descriptor, error) {
	if unknown := rules.Unknown(d.Rules); len(unknown) > 0 {
		return d, fmt.Errorf("check %s: rule IDs %s are not in the rule table (harness/rules/rules.tsv)", d.ID, strings.Join(unknown, ", "))
	}
	var binding, seeds []rules.Rule
	for _, id := range d.Rules {
		r, _ := rules.Lookup(id)
		switch {
		case r.Source == rules.Hardened:
			seeds = append(seeds, r)
		case r.Source == rules.Spec && r.Primary() != "" && r.Binds(string(d.Role)) && d.coveredBy(r):
			binding = append(binding, r)
		}
	}
	switch {
	case d.Source == Hardened && len(binding)+len(seeds) > 0:
		if d.Level == "" {
			d.Level = MUST
		}
	case len(binding) > 0:
		d.Source = Spec
		if d.Level == "" {
			d.Level = Level(binding[0].Keywords()[0])
			break
		}
		if !slices.ContainsFunc(binding, func(r rules.Rule) bool { return strength(Level(r.Keywords()[0])) >= strength(d.Level) }) {
			return d, fmt.Errorf("check %s: level %s is stronger than its binding rules' text (%s)", d.ID, d.Level, describe(binding))
		}
	case len(seeds) > 0:
		d.Source = Hardened
		if d.Level == "" {
			d.Level = MUST
		}
	default:
		return d, fmt.Errorf("check %s: none of its rules %s binds the %s in its era; cite the rule of the side under test", d.ID, strings.Join(d.Rules, ", "), d.Role)
	}
	return d, nil
}

// coveredBy reports whether the rule belongs to one of the check's eras.
func (d Descriptor) coveredBy(r rules.Rule) bool {
	return slices.ContainsFunc(d.EraList(), func(e Era) bool { return r.Covers(string(e)) })
}

func describe(rs []rules.Rule) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.ID + " " + r.Level
	}
	return strings.Join(parts, ", ")
}

// strength orders the levels: MAY < SHOULD < MUST.
func strength(l Level) int { return slices.Index([]Level{MAY, SHOULD, MUST}, l) }
