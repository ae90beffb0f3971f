package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"go.yaml.in/yaml/v3"
)

// Baseline is an expected-failures file: per role, the checks known to fail
// for the implementation under test, each with the reason. Apply gives it
// its four-way semantics. A nil *Baseline lists nothing.
//
//	client:
//	  - id: stdio.client.some-check
//	    reason: why it is expected to fail
//	server:
//	  - id: …
//	    reason: …
//	fuzz:
//	  - signature: one-response-3f2a9c1b7d04
//	    reason: why mcpconform fuzz finds it
type Baseline struct {
	path    string
	reasons map[check.Role]map[string]string // role → check ID → reason
	fuzz    map[string]string                // finding signature → reason
}

type baselineFile struct {
	Client []baselineEntry `yaml:"client"`
	Server []baselineEntry `yaml:"server"`
	Fuzz   []fuzzEntry     `yaml:"fuzz"`
}

type baselineEntry struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason"`
}

// fuzzEntry is a known finding of mcpconform fuzz: its group's signature.
type fuzzEntry struct {
	Signature string `yaml:"signature"`
	Reason    string `yaml:"reason"`
}

// baselineFix ends every error about the file's shape.
const baselineFix = "the file holds client: and server: lists of entries with an id and a reason, and a fuzz: list of entries with a signature and a reason"

// yamlTypes turns the Go types in the YAML decoder's messages into words.
var yamlTypes = strings.NewReplacer(
	"[]report.baselineEntry", "a list of entries",
	"type report.baselineEntry", "an entry (it takes id and reason)",
	"report.baselineEntry", "an entry (id and reason)",
	"[]report.fuzzEntry", "a list of entries",
	"type report.fuzzEntry", "a fuzz entry (it takes signature and reason)",
	"report.fuzzEntry", "a fuzz entry (signature and reason)",
	"type report.baselineFile", "the top level (it takes client, server and fuzz)",
	"report.baselineFile", "the top level (a mapping with client, server and fuzz)",
)

// LoadBaseline reads an expected-failures baseline. Decoding is strict: an
// unknown key, an entry without an id or a reason, or a check ID listed
// twice is an error that names the file, the entry and the fix. An empty
// file is an empty baseline.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := ReadInput("--expected-failures", path, MaxBaselineFile)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f baselineFile
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("expected-failures baseline %s: %s; %s", path, yamlMessage(err), baselineFix)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("expected-failures baseline %s: more than one YAML document (a second '---'); keep a single document", path)
	}

	b := &Baseline{path: path, reasons: map[check.Role]map[string]string{check.Client: {}, check.Server: {}}}
	listedUnder := map[string]check.Role{}
	for _, list := range []struct {
		role    check.Role
		entries []baselineEntry
	}{{check.Client, f.Client}, {check.Server, f.Server}} {
		for i, e := range list.entries {
			id, reason := strings.TrimSpace(e.ID), strings.TrimSpace(e.Reason)
			prev, dup := listedUnder[id]
			if id != "" && reason != "" && !dup {
				listedUnder[id] = list.role
				b.reasons[list.role][id] = reason
				continue
			}
			// A wrong entry: the file is parsed again, only now, for its line.
			where := fmt.Sprintf("%s entry %d", list.role, i+1)
			if l := entryLines(data)[list.role]; i < len(l) {
				where += fmt.Sprintf(" (line %d)", l[i])
			}
			if id == "" {
				return nil, fmt.Errorf("expected-failures baseline %s: %s has no id; give the ID of the check expected to fail (`mcpconform list` shows them)", path, where)
			}
			if reason == "" {
				return nil, fmt.Errorf("expected-failures baseline %s: %s (%s) has no reason; say why it is expected to fail, for example the issue that tracks it", path, where, id)
			}
			if prev == list.role {
				return nil, fmt.Errorf("expected-failures baseline %s: %s: %s is listed twice under %s; keep one entry", path, where, id, list.role)
			}
			return nil, fmt.Errorf("expected-failures baseline %s: %s: %s is listed under both client and server; a check has one role, keep the entry under that role only", path, where, id)
		}
	}
	b.fuzz = map[string]string{}
	for i, e := range f.Fuzz {
		sig, reason := strings.TrimSpace(e.Signature), strings.TrimSpace(e.Reason)
		where := fmt.Sprintf("fuzz entry %d", i+1)
		if l := entryLines(data)["fuzz"]; i < len(l) {
			where += fmt.Sprintf(" (line %d)", l[i])
		}
		switch {
		case sig == "":
			return nil, fmt.Errorf("expected-failures baseline %s: %s has no signature; give the signature mcpconform fuzz printed for the finding", path, where)
		case reason == "":
			return nil, fmt.Errorf("expected-failures baseline %s: %s (%s) has no reason; say why it is expected, for example the issue that tracks it", path, where, sig)
		case b.fuzz[sig] != "":
			return nil, fmt.Errorf("expected-failures baseline %s: %s: %s is listed twice under fuzz; keep one entry", path, where, sig)
		}
		b.fuzz[sig] = reason
	}
	return b, nil
}

// Fuzz maps the signatures of the findings of mcpconform fuzz the baseline
// lists to their reasons; empty for a nil Baseline.
func (b *Baseline) Fuzz() map[string]string {
	if b == nil {
		return map[string]string{}
	}
	return b.fuzz
}

func yamlMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return yamlTypes.Replace(strings.Join(te.Errors, "; "))
	}
	return yamlTypes.Replace(strings.TrimPrefix(err.Error(), "yaml: "))
}

// entryLines returns the line of each entry of each role's list, for error
// messages; nil where the document does not have the expected shape.
func entryLines(data []byte) map[check.Role][]int {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil
	}
	lines := map[check.Role][]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		role, list := check.Role(top.Content[i].Value), top.Content[i+1]
		for _, item := range list.Content {
			lines[role] = append(lines[role], item.Line)
		}
	}
	return lines
}

// Apply gives a result its baseline meaning for the role under test:
//
//   - listed and FAIL or WARN (the rule is still broken): XFAIL, the message
//     prefixed with "expected failure: <reason>; ";
//   - listed and PASS: STALE, which fails the run until the entry is removed;
//   - not listed: unchanged, failures keep failing.
//
// Other outcomes (INFO, UNIMPLEMENTED, SKIPPED, N/A, HARDENED, ERROR) prove
// nothing the baseline can speak for (a harness error is never absorbed) and
// are unchanged. A nil Baseline returns r unchanged.
func (b *Baseline) Apply(role check.Role, r check.Result) check.Result {
	if b == nil {
		return r
	}
	reason, listed := b.reasons[role][r.ID]
	if !listed {
		return r
	}
	switch r.Outcome {
	case check.Fail, check.Warn:
		r.Outcome = check.ExpectedFail
		r.Message = "expected failure: " + reason + "; " + r.Message
	case check.Pass:
		r.Outcome = check.Stale
		msg := fmt.Sprintf("stale baseline entry: the check passes but %s lists it as an expected failure under %s: (reason: %s); remove the entry", b.path, role, reason)
		if r.Message != "" {
			msg += "; " + r.Message
		}
		r.Message = msg
	}
	return r
}

// Unknown returns, sorted, the check IDs the baseline lists that known does
// not recognise: entries for checks not in the catalogue, usually a typo or
// a renamed check.
func (b *Baseline) Unknown(known func(id string) bool) []string {
	if b == nil {
		return nil
	}
	var ids []string
	for _, byID := range b.reasons {
		for id := range byID {
			if !known(id) {
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return ids
}
