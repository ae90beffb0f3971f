package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// How a client pages through tools/list against a fake whose pages are of
// uneven size and whose cursors hold characters a client might escape or
// trim (PA-02, PA-04, PA-05, PA-06).

var _ = clientCheck(check.Descriptor{
	ID:    "client.pagination.follows-cursors",
	Title: "the client follows tools/list's nextCursor, exactly as given, through pages of uneven size to the page without one",
	Requirement: "A client sends each nextCursor back exactly as the server gave it (PA-05), assumes no page size: a page shorter than the first " +
		"is not the last (PA-02), follows nextCursor until it is absent, which ends the list (PA-04), and in 2026-07-28 follows an empty " +
		"nextCursor like any other (PA-06).",
	Rules:    []string{"PA-05", "PA-02", "PA-04", "PA-06"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.PagesIgnored, mutant.PageSizeAssumed, mutant.CursorAltered, mutant.EmptyCursorEnds},
}, func(c *run.C) {
	cursors := fakeservers.PageCursors(c.JudgedEra() == check.Modern)
	eachTransport(c, func(t check.Transport) {
		x := runCase(c, t, "paged")
		sent := listCursors(x.Sent)
		if len(sent) == 0 {
			c.Unimplemented(fmt.Sprintf("over %s the client sent no tools/list; an adapter lists the server's tools and calls each", t))
		}
		for _, cursor := range sent {
			c.RequireRule("PA-05", cursor == nil || slices.Contains(cursors, *cursor), "every cursor sent back exactly as the server gave it",
				"the client sent the cursor %q; the server gave %s", deref(cursor), quoteAll(cursors))
		}
		for i, cursor := range cursors {
			rule, why := stopped(i, cursor)
			c.RequireRule(rule, slices.ContainsFunc(sent, func(s *string) bool { return s != nil && *s == cursor }),
				fmt.Sprintf("tools/list with the nextCursor %q of page %d", cursor, i+1),
				"the client never asked for page %d: %s (cursors it sent: %s)", i+2, why, describeCursors(sent))
		}
		wantListEnded(c, t, x)
	})
})

// stopped is the rule a client breaks that never asks for the page after
// page i (from 0), whose nextCursor was cursor, and why.
func stopped(i int, cursor string) (rule, why string) {
	sizes := fakeservers.PageSizes()
	switch {
	case cursor == "":
		return "PA-06", "it took the empty nextCursor for the end of the list, which in 2026-07-28 is a cursor like any other"
	case sizes[i] < sizes[0]:
		return "PA-02", fmt.Sprintf("page %d held %d tools, fewer than the first's %d, and the client took it for the last: it assumed a page size",
			i+1, sizes[i], sizes[0])
	}
	return "PA-04", fmt.Sprintf("it did not follow page %d's nextCursor", i+1)
}

// wantListEnded judges that the list ended at the page without nextCursor
// with every tool of every page: the adapter's list phase succeeded and it
// called each (PA-04).
func wantListEnded(c *run.C, t check.Transport, x *exchange) {
	if x.List != nil {
		c.RequireRule("PA-04", x.List.Outcome == target.OutcomeOK, "the list ends at the page without nextCursor",
			"over %s the adapter's list phase failed: %s", t, x.List.Error)
	}
	for _, tool := range fakeservers.PagedTools() {
		c.RequireRule("PA-04", x.Call(tool) != nil, "every tool of every page listed and called",
			"over %s tool %q was not called (calls: %s)", t, tool, run.DescribeCalls(x.Calls))
	}
}

// listCursors are the cursors of the client's tools/list requests in
// order, nil for one that sent none.
func listCursors(sent []*jsonrpc.Message) []*string {
	var cursors []*string
	for _, m := range sent {
		if m.Kind() == jsonrpc.KindRequest && m.Method == fakeservers.MethodToolsList {
			cursors = append(cursors, cursorOf(m))
		}
	}
	return cursors
}

// describeCursors renders the cursors of the client's tools/list requests.
func describeCursors(cursors []*string) string {
	s := make([]string, len(cursors))
	for i, c := range cursors {
		s[i] = "none"
		if c != nil {
			s[i] = strconv.Quote(*c)
		}
	}
	return strings.Join(s, ", ")
}

// quoteAll renders strings quoted, comma-separated.
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// deref is *s, or empty for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cursorOf is the cursor of list request m, nil when it sends none.
func cursorOf(m *jsonrpc.Message) *string {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p) // no params: no cursor
	return p.Cursor
}
