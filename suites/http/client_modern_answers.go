package http

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// How a 2026-07-28 client reads what the server answers: header names in
// any case (HT-83), a response stream that breaks (HT-47), and a -32020
// caused by its Mcp-Param-* headers (HT-82).

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.modern.odd-answers",
	Title: "answers whose header names are in upper or lower case are read, and a response stream that breaks is not resumed",
	Requirement: "A 2026-07-28 client compares header names case-insensitively: it reads answers whose header names are all upper case " +
		"(CONTENT-TYPE) or all lower case as any other (HT-83; the values it reads here, media types, are case-insensitive in HTTP itself, " +
		"so the case-sensitive values are judged where the client writes them, by http.client.modern.headers-mirror-body). " +
		"A response stream that breaks before its result is not resumed: no GET, no Last-Event-ID; the request is lost, and a client that " +
		"sends it again sends a new request with a new id (HT-47).",
	Rules:    []string{"HT-47", "HT-83"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ModernStreamResumed, mutant.HeaderNameCaseSensitive},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "odd-answers"}, target.Invocation{})
	wantReached(c, r)
	if phase, p := r.Failed(); p != nil {
		c.RequireRule("HT-83", false, "the client reads answers whose header names are upper case (CONTENT-TYPE) as any other",
			"the adapter's %s failed: %s", phase, p.Error)
	}
	for _, tool := range []string{fakeservers.ToolEcho, httpfake.ToolStreamed} {
		call := r.Call(tool)
		c.RequireRule("HT-83", call != nil && call.OK(),
			fmt.Sprintf("the call of %s succeeds: its answer's header names are in %s case, which a client reads as any other", tool, map[bool]string{true: "upper", false: "lower"}[tool == fakeservers.ToolEcho]),
			"calls: %s", describeCalls(r.Calls))
	}
	broken, ok := firstCall(r, httpfake.ToolBroken)
	if !ok {
		c.Unimplemented(fmt.Sprintf("the client never called %s (calls: %s); it must call every listed tool", httpfake.ToolBroken, describeCalls(r.Calls)))
	}
	id := broken.Messages[0].ID
	resent := false
	for _, q := range r.Requests {
		if !q.Start.After(broken.Start) {
			continue
		}
		c.RequireRule("HT-47", q.Method != http.MethodGet && q.Header.Get(mcp.HeaderLastEventID) == "",
			fmt.Sprintf("no GET and no %s after the stream of %s's call (id %s) broke: 2026-07-28 has no resumption", mcp.HeaderLastEventID, httpfake.ToolBroken, id),
			"the client sent HTTP %s with %s %q", q.Method, mcp.HeaderLastEventID, q.Header.Get(mcp.HeaderLastEventID))
		for _, m := range q.Messages {
			if m.Method == fakeservers.MethodToolsCall && toolName(m) == httpfake.ToolBroken {
				resent = true
				c.RequireRule("HT-47", m.ID.Key() != id.Key(), "the call sent again as a new request with a new id",
					"the client sent the tools/call of %s again with the id of the lost request, %s", httpfake.ToolBroken, m.ID)
			}
		}
	}
	if !resent {
		c.Note("the client did not send the call of %s again after its stream broke (it reported: %s)", httpfake.ToolBroken, describeCalls(r.Calls))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:    "http.client.modern.param-headers-relisted",
	Title: "a tools/call refused with -32020 for its Mcp-Param-* headers is retried after a fresh tools/list, with the headers it gives",
	Requirement: "When a 2026-07-28 tools/call gets -32020 because of its Mcp-Param-* headers (here the tool's x-mcp-header annotation changed " +
		"since the client listed it), the client fetches tools/list again and retries the call with the headers the fresh list gives.",
	Rules:    []string{"HT-82"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ParamMismatchNotRelisted},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "param-headers-moved"}, target.Invocation{})
	wantReached(c, r)
	first, ok := firstCall(r, httpfake.ToolMoved)
	if !ok {
		c.Unimplemented(fmt.Sprintf("the client never called %s (calls: %s); it must call every listed tool", httpfake.ToolMoved, describeCalls(r.Calls)))
	}
	from, to := "Mcp-Param-"+httpfake.MovedFrom, "Mcp-Param-"+httpfake.MovedTo
	if mirroredValue(callArguments(first.Messages[0])[httpfake.MovedParam]) == "" {
		c.Unimplemented(fmt.Sprintf("the client called %s without its argument %s (an adapter that calls every tool with {} sends none), so no %s header "+
			"could go stale; an adapter that fills in the arguments the inputSchema requires (as the reference adapter does) is judged", httpfake.ToolMoved, httpfake.MovedParam, from))
	}
	if first.Header.Get(from) == "" {
		c.Unimplemented(fmt.Sprintf("the client's first call of %s carried no %s for its argument %s, which its tools/list annotated: it does not mirror x-mcp-header parameters "+
			"(HT-79, judged by http.client.modern.param-headers), so the -32020 it got was not about a header it derived from the list", httpfake.ToolMoved, from, httpfake.MovedParam))
	}
	relisted, retried := false, false
	var after []string
	for _, q := range modernPOSTs(r) {
		m := q.Messages[0]
		if !q.Start.After(first.Start) {
			continue
		}
		after = append(after, strings.TrimSpace(m.Method+" "+toolName(m)))
		switch {
		case m.Method == "tools/list":
			relisted = true
		case m.Method == fakeservers.MethodToolsCall && toolName(m) == httpfake.ToolMoved && relisted:
			v, err := mcp.DecodeHeaderValue(q.Header.Get(to))
			retried = retried || err == nil && v == httpfake.MovedValue
		}
	}
	c.Require(relisted && retried, fmt.Sprintf("after the -32020 to the call of %s: tools/list, then the call again with %s: %q, as the fresh list annotates it",
		httpfake.ToolMoved, to, httpfake.MovedValue),
		"after the -32020 the client sent %v (calls: %s)", after, describeCalls(r.Calls))
})
