package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

// toolsIndex is a server run's index that called two tools and left two
// alone, one of them with a name that every renderer must escape.
func toolsIndex() *Index {
	ix := NewIndex(Tool{Name: "mcpconform", Version: "1"}, nil, 1, []check.Result{result("server.x", check.Pass, "")})
	ix.Tools = &toolpolicy.Use{
		Called: []string{"echo", "get-env"},
		LeftAlone: []toolpolicy.LeftAlone{
			{Name: "gzip-file-as-resource", Why: toolpolicy.WhyNotReadOnly},
			{Name: "<b>fetch|all</b>", Why: toolpolicy.WhyOpenWorld},
		},
		FixturesFound: []toolpolicy.FoundFixture{{Role: "progress", Tool: "count<sheep>", How: "found by calling count<sheep>: it sent notifications/progress"}},
	}
	return ix
}

func TestJSONIndexTools(t *testing.T) {
	js, err := json.Marshal(toolsIndex())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tools map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Tools["called"]); got != `["echo","get-env"]` {
		t.Errorf("tools.called = %s", got)
	}
	want := `[{"name":"gzip-file-as-resource","why":"not marked readOnlyHint: true"},{"name":"\u003cb\u003efetch|all\u003c/b\u003e","why":"marked openWorldHint: true"}]`
	if got := string(doc.Tools["left_alone"]); got != want {
		t.Errorf("tools.left_alone = %s\nwant %s", got, want)
	}
	noServer, _ := json.Marshal(NewIndex(Tool{}, nil, 1, nil))
	if strings.Contains(string(noServer), `"tools"`) {
		t.Errorf("a run that certified no server has tools: %s", noServer)
	}
}

func TestMarkdownTools(t *testing.T) {
	md := string(RenderMarkdown(toolsIndex()))
	wantContains(t, md, "### Tools", "**Called (2):** echo, get-env", "**Left alone (2)**", "| progress | count&lt;sheep&gt; | found by calling count&lt;sheep&gt;: it sent notifications/progress |",
		"| gzip-file-as-resource | not marked readOnlyHint: true |", "`--call-tools all`")
	if strings.Contains(md, "<b>") || strings.Contains(md, "fetch|all") {
		t.Errorf("a tool's name breaks the table:\n%s", md)
	}
}

func TestHTMLTools(t *testing.T) {
	page := string(mustHTML(t, toolsIndex()))
	wantContains(t, page, `<details id="tools"><summary><b>Tools</b> 2 called · 2 left alone</summary>`,
		"<code>echo</code>, <code>get-env</code>",
		"<tr><td><code>gzip-file-as-resource</code></td><td>not marked readOnlyHint: true</td></tr>",
		"<code>&lt;b&gt;fetch|all&lt;/b&gt;</code>",
		"<tr><td>progress</td><td><code>count&lt;sheep&gt;</code></td><td>found by calling count&lt;sheep&gt;: it sent notifications/progress</td></tr>")
	if strings.Contains(page, "<b>fetch") {
		t.Error("a tool's name is not escaped")
	}
	if strings.Contains(string(mustHTML(t, NewIndex(Tool{}, nil, 1, nil))), `id="tools"`) {
		t.Error("a run that certified no server has a Tools section")
	}
}

func TestRedactMasksToolNames(t *testing.T) {
	ix := toolsIndex()
	ix.Tools.Called = append(ix.Tools.Called, "PLANTED<&>-tool")
	ix.Tools.LeftAlone = append(ix.Tools.LeftAlone, toolpolicy.LeftAlone{Name: "x-SECRETQ", Why: toolpolicy.WhyNotReadOnly})
	ix.Tools.FixturesFound = append(ix.Tools.FixturesFound, toolpolicy.FoundFixture{Role: "logging", Tool: "PLANTED<&>-log", How: "found by calling PLANTED<&>-log"})
	ix.Redact(plantedSecrets)
	js, _ := json.Marshal(ix)
	for _, leak := range []string{"PLANTED", "SECRETQ"} {
		if strings.Contains(string(js), leak) {
			t.Errorf("the index holds %s: %s", leak, js)
		}
	}
}
