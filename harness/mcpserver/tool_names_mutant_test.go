package mcpserver

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

func init() {
	valid := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	serverRuleOf[mutant.ToolNameWithSpace] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		var page struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(p.call("tools/list", "{}").Result, &page); err != nil {
			t.Fatal(err)
		}
		for _, tool := range page.Tools {
			if !valid.MatchString(tool.Name) {
				return true, "the tool name " + tool.Name
			}
		}
		return false, "every name of the first page valid"
	}
}
