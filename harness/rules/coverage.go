package rules

import "strings"

// Roles are the roles a certificate judges, in the order reports show them.
var Roles = []string{"client", "server"}

// Area is a group of spec rules, named by the letters before the dash of
// their IDs.
type Area struct {
	Code, Name string
	// Counted is false for the areas whose coverage their own work tracks
	// (multi-round-trip, subscriptions, tasks, authorization): listed, left
	// out of the totals.
	Counted bool
}

// areas are the groups of the specification digest, in its order.
var areas = []Area{
	{"JR", "JSON-RPC", true}, {"LC", "lifecycle", true}, {"ST", "stdio", true}, {"HT", "streamable HTTP", true},
	{"PG", "ping", true}, {"CN", "cancellation", true}, {"PR", "progress", true}, {"LG", "logging", true},
	{"PA", "pagination", true}, {"CP", "completion", true}, {"TL", "tools", true}, {"RS", "resources", true},
	{"PM", "prompts", true}, {"SM", "sampling", true}, {"EL", "elicitation", true}, {"RT", "roots", true},
	{"MR", "multi-round-trip", false}, {"SB", "subscriptions", false}, {"TK", "tasks", false},
	{"AU", "authorization", false}, {"LM", "limits", true},
}

// AreaOf returns the area of a rule ID, and false for an ID of no area.
func AreaOf(id string) (Area, bool) {
	code, _, _ := strings.Cut(id, "-")
	for _, a := range areas {
		if a.Code == code {
			return a, true
		}
	}
	return Area{Code: code}, false
}

// Citation is a check that cites a rule, and the role it certifies.
type Citation struct {
	Check, Role string
}

// Entry is one spec rule with the checks that cite it.
type Entry struct {
	Rule
	Checks []Citation
}

// CheckedFor reports whether a check certifying role cites the rule.
func (e Entry) CheckedFor(role string) bool {
	for _, c := range e.Checks {
		if c.Role == role {
			return true
		}
	}
	return false
}

// Waiting returns the roles the rule binds at MUST or SHOULD for which it
// can be judged from the wire (no reason) and no check of that role cites
// it yet.
func (e Entry) Waiting() []string {
	var out []string
	for _, role := range Roles {
		if e.Normative() && e.Binds(role) && e.ReasonFor(role) == "" && !e.CheckedFor(role) {
			out = append(out, role)
		}
	}
	return out
}

// Tally counts the MUST and SHOULD spec rules that bind one role: those a
// check of the role cites, those that cannot be judged from the wire (a
// reason), and those that can (Judgeable, every rule without a reason).
type Tally struct {
	Rules, WithCheck, WithReason, Judgeable int
}

// Percent is the share of the judgeable rules a check cites, and false
// when no rule is judgeable.
func (t Tally) Percent() (float64, bool) {
	if t.Judgeable == 0 {
		return 0, false
	}
	return 100 * float64(t.WithCheck) / float64(t.Judgeable), true
}

func (t *Tally) add(e Entry, role string) {
	if !e.Normative() || !e.Binds(role) {
		return
	}
	t.Rules++
	switch {
	case e.ReasonFor(role) != "":
		t.WithReason++
	default:
		t.Judgeable++
		if e.CheckedFor(role) {
			t.WithCheck++
		}
	}
}

// AreaTally is an area's tally per role.
type AreaTally struct {
	Area
	Roles map[string]Tally
}

// Coverage is how far the checks reach into the specification: every
// spec rule with the checks citing it, a tally per area and role, and
// the totals per role over the counted areas.
type Coverage struct {
	Entries []Entry
	Areas   []AreaTally
	Roles   map[string]Tally
}

// Measure returns the coverage of the table's spec rules, given the checks
// that cite each rule ID. A rule of no known area is listed and not
// tallied (the table's test keeps every rule in an area).
func Measure(cites map[string][]Citation) Coverage {
	cov := Coverage{Roles: map[string]Tally{}}
	at := map[string]int{}
	for i, a := range areas {
		cov.Areas = append(cov.Areas, AreaTally{Area: a, Roles: map[string]Tally{}})
		at[a.Code] = i
	}
	for _, r := range All() {
		if r.Source != Spec {
			continue
		}
		e := Entry{Rule: r, Checks: cites[r.ID]}
		cov.Entries = append(cov.Entries, e)
		a, known := AreaOf(r.ID)
		if !known {
			continue
		}
		tally := cov.Areas[at[a.Code]].Roles
		for _, role := range Roles {
			t := tally[role]
			t.add(e, role)
			tally[role] = t
			if a.Counted {
				t := cov.Roles[role]
				t.add(e, role)
				cov.Roles[role] = t
			}
		}
	}
	return cov
}
