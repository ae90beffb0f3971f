package report

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// plantedSecrets are what the redaction tests plant: a --secret value with
// a character every renderer escapes, and a URL's password and token.
var plantedSecrets = transcript.Secrets{}.WithURL("http://u:SECRETPW@127.0.0.1:1/mcp?token=SECRETQ").With("PLANTED<&>")

func TestIndexRedactMasksEveryRenderedReport(t *testing.T) {
	r := result("a.check", check.Fail, "expected: x\nobserved: PLANTED<&> in Post \"http://u:***@127.0.0.1:1/mcp?token=SECRETQ\"")
	r.Transcript = []string{"note POST /mcp?token=SECRETQ", `s2c {"echo":"PLANTED<&>"}`}
	target := map[string]any{
		"url":     "http://u:SECRETPW@127.0.0.1:1/mcp?token=SECRETQ",
		"command": []string{"./server", "--key", "PLANTED<&>"},
		"eras":    map[string]string{"http": "the server gave no answer (SECRETQ)"},
		"roles":   []check.Role{check.Server},
	}
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, target, 1, []check.Result{r})
	ix.Redact(plantedSecrets)
	js, err := json.Marshal(ix)
	if err != nil {
		t.Fatal(err)
	}
	page := mustHTML(t, ix)
	for name, out := range map[string]string{"JSON": string(js), "Markdown": string(RenderMarkdown(ix)), "HTML": string(page)} {
		for _, leak := range []string{"SECRETPW", "SECRETQ", "PLANTED"} {
			if strings.Contains(out, leak) {
				t.Errorf("%s holds %s:\n%s", name, leak, out)
			}
		}
	}
	if got := ix.Target["url"]; got != "http://***@127.0.0.1:1/mcp?token=***" {
		t.Errorf("target url %q", got)
	}
	if roles, ok := ix.Target["roles"].([]check.Role); !ok || roles[0] != check.Server {
		t.Errorf("the roles changed: %#v", ix.Target["roles"])
	}
}

func TestRedactReportMasksWhatJUnitWrites(t *testing.T) {
	rep := syntheticReport()
	failed := &rep.SpecReports[2]
	failed.Failure.Message = "observed: PLANTED<&> at http://u:SECRETPW@127.0.0.1:1/mcp?token=SECRETQ"
	failed.Failure.ForwardedPanic = "also SECRETQ"
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := WriteJUnit(RedactReport(rep, plantedSecrets), NewIndex(Tool{Name: "mcpconform"}, nil, 0, nil), path); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	for _, leak := range []string{"SECRETPW", "SECRETQ", "PLANTED"} {
		if strings.Contains(data, leak) {
			t.Errorf("the JUnit report holds %s:\n%s", leak, data)
		}
	}
	wantContains(t, data, "observed: ***")
	if !strings.Contains(rep.SpecReports[2].Failure.Message, "PLANTED") {
		t.Error("RedactReport changed the report it was given")
	}
}
