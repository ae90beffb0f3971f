package fakeservers

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// TestToolPages follows the paged case's cursors in both eras: every tool
// once, the last page without nextCursor, the modern era's empty cursor a
// page like any other, and a cursor altered by one character refused.
func TestToolPages(t *testing.T) {
	for _, modern := range []bool{false, true} {
		var got []string
		var params any
		for page := range len(toolPages) + 1 {
			req, err := jsonrpc.NewRequest(jsonrpc.IntID(int64(page)), MethodToolsList, params)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Tools      []Tool  `json:"tools"`
				NextCursor *string `json:"nextCursor"`
			}
			if err := json.Unmarshal(toolPage(req, modern).Result, &r); err != nil {
				t.Fatalf("modern %v, page %d: %v", modern, page, err)
			}
			for _, tool := range r.Tools {
				got = append(got, tool.Name)
			}
			if r.NextCursor == nil {
				break
			}
			params = map[string]string{"cursor": *r.NextCursor}
		}
		if !slices.Equal(got, PagedTools()) {
			t.Errorf("modern %v: tools %v; want %v", modern, got, PagedTools())
		}
		altered, _ := jsonrpc.NewRequest(jsonrpc.IntID(9), MethodToolsList, map[string]string{"cursor": "cGFnZT0y/+=="})
		if e := toolPage(altered, modern).Error; e == nil || e.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("modern %v: a trimmed cursor got %v; want -32602", modern, e)
		}
	}
}
