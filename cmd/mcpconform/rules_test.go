package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

// TestRulesJSONTracesEveryCitedRule is the condition: every rule
// ID a check cites has its sentence and its source, a spec rule its
// versions, section and a URL of the specification, and lists the check.
func TestRulesJSONTracesEveryCitedRule(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"rules", "--format", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got struct{ Rules []ruleEntry }
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	byID := map[string]ruleEntry{}
	for _, e := range got.Rules {
		byID[e.ID] = e
	}
	for _, d := range check.All() {
		for _, id := range d.Rules {
			e, ok := byID[id]
			if !ok {
				t.Errorf("%s cites %s, which rules does not list", d.ID, id)
				continue
			}
			if e.Text == "" || e.Source == "" || e.Section == "" || e.Level == "" || e.Role == "" {
				t.Errorf("%s: text %q source %q section %q level %q role %q", id, e.Text, e.Source, e.Section, e.Level, e.Role)
			}
			switch e.Source {
			case "spec":
				if !strings.HasPrefix(e.URL, "https://modelcontextprotocol.io/specification/") || len(e.SpecVersions) == 0 {
					t.Errorf("%s: url %q versions %v", id, e.URL, e.SpecVersions)
				} else if newest := e.SpecVersions[len(e.SpecVersions)-1]; !strings.Contains(e.URL, "/"+newest+"/") {
					t.Errorf("%s: url %q is not of version %s", id, e.URL, newest)
				}
			case "hardened":
				if !strings.HasPrefix(e.URL, "seeds/") {
					t.Errorf("%s: url %q names no seed document", id, e.URL)
				}
			default:
				t.Errorf("%s: source %q", id, e.Source)
			}
			if !slices.Contains(e.Checks, d.ID) {
				t.Errorf("%s: checks %v leave out %s, which cites it", id, e.Checks, d.ID)
			}
		}
	}
}

func TestRulesFormats(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"table", "ST-03   MUST NOT"},
		{"markdown", "| [ST-03](https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio) | MUST NOT | server | spec 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 | 3 stdio transport |"},
		{"markdown", "| NG-03 | MUST | client | hardened (seeds/neograph-stdio-client-config.txt) | NG: stdio client |"},
	} {
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"rules", "--format", tc.format}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.format, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: no %q in\n%.2000s", tc.format, tc.want, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"rules", "--format", "xml"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "table, json or markdown") {
		t.Errorf("--format xml: exit %d, stderr %q", code, stderr.String())
	}
}

func TestListTableShowsRuleURLs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"list"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "stdio.client.banner.before-initialize ") {
			// NG-01 and NG-03 share their seed document; ST-03 is a section of the specification.
			if !strings.HasSuffix(line, "  seeds/neograph-stdio-client-config.txt https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio") {
				t.Errorf("rule URLs not at the end of %q", line)
			}
			return
		}
	}
	t.Fatalf("stdio.client.banner.before-initialize not listed in\n%.2000s", stdout.String())
}
