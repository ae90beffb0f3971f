package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
)

func TestBadgeSaysTheSpecScoreAndColour(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		outcome check.Outcome
		colour  string
	}{{check.Pass, "#4c1"}, {check.Fail, "#e05d44"}} {
		ix := report.NewIndex(report.Tool{Name: "mcpconform", Version: "v1"}, nil, 1, []check.Result{
			{Descriptor: check.Descriptor{ID: "server.a", Role: check.Server, Transport: check.Stdio, Level: check.MUST, Source: check.Spec}, Outcome: tc.outcome},
			{Descriptor: check.Descriptor{ID: "server.b <&>", Role: check.Server, Transport: check.HTTP, Level: check.MUST, Source: check.Spec}, Outcome: check.Pass},
		})
		ix.Profile = check.SpecProfile
		js := filepath.Join(dir, "r.json")
		b, _ := json.Marshal(ix)
		if err := os.WriteFile(js, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"badge", js}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		svg := stdout.String()
		if err := xml.Unmarshal([]byte(svg), new(struct{ XMLName xml.Name })); err != nil {
			t.Fatalf("not XML: %v\n%s", err, svg)
		}
		want := "spec " + map[check.Outcome]string{check.Pass: "2/2", check.Fail: "1/2"}[tc.outcome] + " MUST · spec · server http+stdio"
		if !strings.Contains(svg, want) || !strings.Contains(svg, tc.colour) {
			t.Errorf("%s: the badge does not say %q in %s:\n%s", tc.outcome, want, tc.colour, svg)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"badge", filepath.Join(dir, "none.json")}, &stdout, &stderr); code != 2 {
		t.Errorf("a missing report: exit %d, want 2", code)
	}
}
