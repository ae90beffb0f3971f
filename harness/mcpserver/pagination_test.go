package mcpserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// listAll follows nextCursor through every page of a list and returns the
// names (or uris) of its items and the cursors it was given.
func listAll(t *testing.T, p *peer, method, key, field string) (names, cursors []string, pages int) {
	t.Helper()
	params := ""
	for pages = 1; pages < 100; pages++ {
		resp := p.call(method, params)
		wantServerResult(t, resp)
		var page map[string]json.RawMessage
		_ = json.Unmarshal(resp.Result, &page)
		var items []map[string]any
		if err := json.Unmarshal(page[key], &items); err != nil {
			t.Fatalf("%s page %d: %s", method, pages, resp.Result)
		}
		for _, it := range items {
			names = append(names, fmt.Sprint(it[field]))
		}
		var next string
		if raw, ok := page["nextCursor"]; !ok || json.Unmarshal(raw, &next) != nil {
			return names, cursors, pages
		}
		cursors = append(cursors, next)
		params = fmt.Sprintf(`{"cursor":%q}`, next)
	}
	t.Fatalf("%s never ends", method)
	return nil, nil, 0
}

func TestServerPaginatesEveryList(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, c := range []struct {
		method, key, field string
		want               int
	}{
		{"tools/list", "tools", "name", len(serverTools)},
		{"resources/list", "resources", "uri", len(serverResources)},
		{"resources/templates/list", "resourceTemplates", "uriTemplate", len(serverTemplates)},
		{"prompts/list", "prompts", "name", len(serverPrompts)},
	} {
		names, _, pages := listAll(t, p, c.method, c.key, c.field)
		if len(names) != c.want || pages != (c.want+DefaultPageSize-1)/DefaultPageSize {
			t.Errorf("%s: %d items in %d pages, want %d items in pages of %d", c.method, len(names), pages, c.want, DefaultPageSize)
		}
	}
}

func TestServerPageSizeIsConfigurable(t *testing.T) {
	p := newPeerWith(t, Options{PageSize: 100})
	p.initialize("{}")
	if names, _, pages := listAll(t, p, "tools/list", "tools", "name"); pages != 1 || len(names) != len(serverTools) {
		t.Fatalf("%d tools in %d pages", len(names), pages)
	}
}

func TestServerRefusesCursorsItDidNotIssue(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	_, toolCursors, _ := listAll(t, p, "tools/list", "tools", "name")
	for _, c := range []struct{ method, cursor string }{
		{"tools/list", "not-a-cursor"},
		{"tools/list", ""},
		{"tools/list", encodeCursor("tools", 0)},
		{"tools/list", encodeCursor("tools", len(serverTools))},
		{"tools/list", encodeCursor("tools", -2)},
		{"tools/list", toolCursors[0] + "="},
		{"prompts/list", toolCursors[0]},
		{"resources/templates/list", encodeCursor("resourceTemplates", 1)},
	} {
		resp := p.call(c.method, fmt.Sprintf(`{"cursor":%q}`, c.cursor))
		wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	}
	// A null cursor is no cursor: the first page.
	wantServerResult(t, p.call("tools/list", `{"cursor":null}`), `"name":"test_simple_text"`)
}
