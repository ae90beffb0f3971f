package report

import (
	"bytes"
	"cmp"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/harness/check"
)

// SkeletonTODO starts the reason of an entry a skeleton adds: the check's
// observed line, to be replaced with the evidence and the reason.
const SkeletonTODO = "TODO (replace with why it fails):"

// Skeleton writes an expected-failures baseline from a run's JSON index:
// one entry for every check still missing its rule (FAIL, WARN, or XFAIL
// in a run that had a baseline), under its role. A HARDENED outcome stays
// out: under --profile spec it fails nothing, and under hardened such a
// miss is a FAIL. An entry that old (nil for none) has keeps its reason; a
// new one gets SkeletonTODO and the check's outcome, level, rules and
// first observed line. old's fuzz entries are kept, and its entries for
// checks that no longer miss are listed in a closing comment, so that
// nothing is dropped silently. A run with this output as its
// --expected-failures gives XFAIL for every entry.
func Skeleton(ix *Index, old *Baseline) ([]byte, error) {
	byRole := map[check.Role][]Check{}
	for _, c := range ix.Checks {
		switch c.Outcome {
		case check.Fail, check.Warn, check.ExpectedFail:
			byRole[c.Role] = append(byRole[c.Role], c)
		}
	}
	top := &yaml.Node{Kind: yaml.MappingNode}
	kept := map[string]bool{}
	for _, role := range []check.Role{check.Client, check.Server} {
		cs := byRole[role]
		if len(cs) == 0 {
			continue
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range cs {
			reason, had := "", false
			if old != nil {
				reason, had = old.reasons[role][c.ID]
			}
			if had {
				kept[c.ID] = true
			} else {
				reason = skeletonReason(c)
			}
			list.Content = append(list.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				str("id", 0), str(c.ID, 0),
				str("reason", 0), str(reason, yaml.FoldedStyle),
			}})
		}
		top.Content = append(top.Content, str(string(role), 0), list)
	}
	if old != nil && len(old.fuzz) > 0 {
		sigs := make([]string, 0, len(old.fuzz))
		for s := range old.fuzz {
			sigs = append(sigs, s)
		}
		sort.Strings(sigs)
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, s := range sigs {
			list.Content = append(list.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				str("signature", 0), str(s, 0),
				str("reason", 0), str(old.fuzz[s], yaml.FoldedStyle),
			}})
		}
		top.Content = append(top.Content, str("fuzz", 0), list)
	}
	head := fmt.Sprintf("Expected failures from a run of %s %s (profile %s).\n"+
		"Replace every %q reason with the observed behaviour and its evidence.",
		ix.Tool.Name, ix.Tool.Version, cmp.Or(string(ix.Profile), string(check.SpecProfile)), SkeletonTODO)
	var target []string
	for _, k := range []string{"command", "url", "adapter", "server_info"} {
		if v, ok := ix.Target[k]; ok {
			target = append(target, k+" "+strings.Join(strings.Fields(valueText(v)), " "))
		}
	}
	if len(target) > 0 {
		head += "\nTarget: " + strings.Join(target, "; ")
	}
	var dropped []string
	if old != nil {
		for _, role := range []check.Role{check.Client, check.Server} {
			for id := range old.reasons[role] {
				if !kept[id] {
					dropped = append(dropped, id)
				}
			}
		}
		sort.Strings(dropped)
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: head, Content: []*yaml.Node{top}}
	if len(top.Content) == 0 {
		// No entry: an empty mapping, which LoadBaseline reads as an
		// empty baseline.
		top.Style = yaml.FlowStyle
	}
	if len(dropped) > 0 {
		doc.FootComment = "No longer missed (or not run), so left out: " + strings.Join(dropped, ", ")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("baseline skeleton: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("baseline skeleton: %w", err)
	}
	return buf.Bytes(), nil
}

// skeletonReason is a new entry's reason: SkeletonTODO, then what the
// check saw.
func skeletonReason(c Check) string {
	observed := ""
	for _, l := range strings.Split(c.Message, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "observed:") {
			observed = l
			break
		}
	}
	if observed == "" {
		observed = firstLine(strings.TrimSpace(c.Message))
	}
	if r := []rune(observed); len(r) > 240 {
		observed = string(r[:240]) + "…"
	}
	return fmt.Sprintf("%s %s %s %s over %s. %s", SkeletonTODO, c.Outcome, c.Level, strings.Join(c.Rules, ","), c.Transport, observed)
}

func str(v string, style yaml.Style) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style}
}
