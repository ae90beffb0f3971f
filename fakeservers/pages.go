package fakeservers

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The paged cases serve tools/list in pages of uneven size, so a client
// that follows nextCursor to its absence meets every tool, and one that
// assumes a page size, ignores the cursor, alters it or takes an empty one
// for the end misses some (PA-02, PA-04, PA-05, PA-06).

// toolPages are the tools of the paged cases, page by page: the third page
// is shorter than the first, so a client that takes a short page for the
// last stops before the fourth (PA-02).
var toolPages = [][]string{{"p1", "p2"}, {"p3", "p4"}, {"p5"}, {"p6", "p7"}}

// PagedTools are the tools of the paged cases, every page's in order.
func PagedTools() []string { return slices.Concat(toolPages...) }

// PageCursors are the nextCursor values that lead to the second, third and
// fourth page, in the 2026-07-28 era when modern. They hold characters a
// client that treats a cursor as text to escape or trim would change
// (PA-05); the modern era's second is the empty string, a cursor there
// like any other (PA-06).
func PageCursors(modern bool) []string {
	if modern {
		return []string{"cGFnZT0y/+== ", "", "cGFnZT00/+== "}
	}
	return []string{"cGFnZT0y/+== ", "cGFnZT0z/+== ", "cGFnZT00/+== "}
}

// PageSizes are the sizes of the paged cases' pages, in order.
func PageSizes() []int {
	sizes := make([]int, len(toolPages))
	for i, p := range toolPages {
		sizes[i] = len(p)
	}
	return sizes
}

// pagedList is tools/list result of a paged case: a page and, on all
// but the last, the cursor of the next.
type pagedList struct {
	ToolListResult
	NextCursor *string `json:"nextCursor,omitempty"`
}

// toolPage answers tools/list request m of a paged case in the era (modern
// or not): the page its cursor leads to (the first without one), or
// -32602 for a cursor the fake never gave.
func toolPage(m *jsonrpc.Message, modern bool) *jsonrpc.Message {
	var params struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &params) // no params: the first page
	cursors := PageCursors(modern)
	page := 0
	if params.Cursor != nil {
		i := slices.Index(cursors, *params.Cursor)
		if i < 0 {
			return jsonrpc.NewError(m.ID, jsonrpc.CodeInvalidParams, fmt.Sprintf("invalid cursor %q: not one this server gave", *params.Cursor))
		}
		page = i + 1
	}
	r := pagedList{ToolListResult: Offer{Tools: toolPages[page]}.ToolList(modern)}
	if page < len(cursors) {
		r.NextCursor = &cursors[page]
	}
	return ResultMessage(m.ID, r)
}

// PagedCase describes the paged case both fakes have.
const PagedCase = "offers p1…p7 over four tools/list pages of 2, 2, 1 and 2 tools, each cursor holding '/', '+', '=' and a trailing space " +
	"(2026-07-28: the second is the empty string); a cursor it never gave gets -32602"
