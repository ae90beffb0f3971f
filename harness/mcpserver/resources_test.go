package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestResourcesRead(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for uri, want := range map[string]string{
		"test://static-text":       `"text":"This is the content of the static text resource."`,
		"test://static-binary":     `"blob":"` + fixturePNG() + `"`,
		"test://watched-resource":  `"text":"Watched resource content"`,
		"test://template/123/data": `"mimeType":"application/json"`,
	} {
		resp := p.call("resources/read", `{"uri":"`+uri+`"}`)
		wantServerResult(t, resp, `"uri":"`+uri+`"`, want)
		var r struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(resp.Result, &r) != nil || len(r.Contents) != 1 {
			t.Errorf("%s: %s", uri, resp.Result)
		}
	}
	wantServerResult(t, p.call("resources/read", `{"uri":"test://template/abc/data"}`), `\"id\":\"abc\"`, `\"templateTest\":true`)
}

func TestUnknownResourceIsNotFound(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, uri := range []string{"test://nothing", "test://template//data", "test://template/a/b/data", "file:///etc/passwd"} {
		resp := p.call("resources/read", `{"uri":"`+uri+`"}`)
		wantServerError(t, resp, jsonrpc.CodeResourceNotFound)
		if !strings.Contains(string(resp.Error.Data), uri) {
			t.Errorf("%s: error data %s lacks the uri", uri, resp.Error.Data)
		}
	}
}

func TestResourceListsCarryTheirFields(t *testing.T) {
	p := newPeerWith(t, Options{PageSize: 10})
	p.initialize("{}")
	wantServerResult(t, p.call("resources/list", ""), `"uri":"test://static-text"`, `"name":"Static Text Resource"`, `"mimeType":"image/png"`)
	wantServerResult(t, p.call("resources/templates/list", ""), `"uriTemplate":"test://template/{id}/data"`, `"name":"Resource Template"`)
}
