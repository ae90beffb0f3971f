package toolpolicy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// listed decodes a tools/list entry as the checks and the fuzzer read it.
func listed(t *testing.T, entry string) mcp.Tool {
	t.Helper()
	var tool mcp.Tool
	if err := json.Unmarshal([]byte(entry), &tool); err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestAllows(t *testing.T) {
	const (
		readOnly   = `{"name":"read","annotations":{"readOnlyHint":true}}`
		closed     = `{"name":"read","annotations":{"readOnlyHint":true,"openWorldHint":false}}`
		openWorld  = `{"name":"fetch","annotations":{"readOnlyHint":true,"openWorldHint":true}}`
		writes     = `{"name":"write","annotations":{"readOnlyHint":false,"destructiveHint":false}}`
		unmarked   = `{"name":"env"}`
		onlyTitle  = `{"name":"env","annotations":{"title":"Env"}}`
		named      = `{"name":"mapped"}`
		unsafeRead = `{"name":"rm","annotations":{"readOnlyHint":true}}`
	)
	fixtures := Policy{Named: []string{"mapped", "rm"}, Unsafe: []string{"rm"}}
	for _, tc := range []struct {
		name   string
		policy Policy
		tool   string
		ok     bool
		why    string
	}{
		{"read-only by default", Policy{}, readOnly, true, ""},
		{"read-only and closed-world", Policy{}, closed, true, ""},
		{"open-world left alone", Policy{}, openWorld, false, WhyOpenWorld},
		{"a writer left alone", Policy{}, writes, false, WhyNotReadOnly},
		{"no annotations left alone", Policy{}, unmarked, false, WhyNotReadOnly},
		{"annotations without readOnlyHint left alone", Policy{}, onlyTitle, false, WhyNotReadOnly},
		{"the fixtures file names it", fixtures, named, true, ""},
		{"named but unsafe", fixtures, unsafeRead, false, WhyUnsafe},
		{"all calls a writer", Policy{Mode: All}, writes, true, ""},
		{"all calls an open-world tool", Policy{Mode: All}, openWorld, true, ""},
		{"all still spares the unsafe", Policy{Mode: All, Unsafe: []string{"write"}}, writes, false, WhyUnsafe},
		{"none calls no read-only tool", Policy{Mode: None}, readOnly, false, WhyNone},
		{"none calls no named tool", Policy{Mode: None, Named: []string{"mapped"}}, named, false, WhyNone},
		{"read-only named explicitly", Policy{Mode: ReadOnly}, writes, false, WhyNotReadOnly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := tc.policy.Allows(listed(t, tc.tool))
			if ok != tc.ok || why != tc.why {
				t.Errorf("Allows(%s) = %v, %q; want %v, %q", tc.tool, ok, why, tc.ok, tc.why)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"all", "read-only", "none"} {
		if m, err := ParseMode("--call-tools", s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "readonly", "ALL", "some"} {
		_, err := ParseMode("--call-tools", s)
		if err == nil || !strings.Contains(err.Error(), "--call-tools") || !strings.Contains(err.Error(), "use all, read-only (the default) or none") {
			t.Errorf("ParseMode(%q): error %v, want one naming the flag and the modes", s, err)
		}
	}
}

func TestExplainGroupsByWhyWithTheWayOut(t *testing.T) {
	got := Explain([]LeftAlone{{"a", WhyNotReadOnly}, {"b", WhyOpenWorld}, {"c", WhyNotReadOnly}, {"d", WhyUnsafe}, {"e", WhyNone}})
	for _, want := range []string{
		"a, c (not marked readOnlyHint: true; allow with --call-tools all, or name the tool in --fixtures)",
		"b (marked openWorldHint: true; allow with --call-tools all, or name the tool in --fixtures)",
		"d (listed under unsafe: in the fixtures file; allow by taking the tool off that list)",
		"e (call-tools is none; allow with --call-tools read-only or all)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Explain = %q\nwant it to hold %q", got, want)
		}
	}
}
