package client

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// How a client validates structuredContent against a tool's outputSchema:
// TL-12, and the JSON Schema rules of 2025-11-25 on (JR-55 … JR-57).

// Versions from which the rules bind.
const (
	outputSchemaSince = "2025-06-18" // outputSchema and structuredContent (TL-12)
	dialectSince      = "2025-11-25" // 2020-12 the default dialect, others refused saying so (JR-55, JR-56)
)

var _ = clientCheck(check.Descriptor{
	ID:    "client.tools.output-schema",
	Title: "a client validates structuredContent against the tool's outputSchema: 2020-12 by default, an unknown dialect refused saying so, no network $ref fetched",
	Requirement: "A client validates a tool's structuredContent against its outputSchema (TL-12, a SHOULD): a result that breaks it fails the call. " +
		"It validates a schema without $schema as JSON Schema 2020-12 (JR-55); a schema whose $schema names a dialect it does not support " +
		"fails that call with an error saying so, and the client goes on (JR-56). In 2026-07-28 it never dereferences a network $ref (JR-57, " +
		"MUST NOT), and a $ref it cannot resolve should fail validation.",
	Rules:    []string{"JR-55", "JR-56", "JR-57", "TL-12"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.OutputUnvalidated, mutant.SchemaDraft7Default, mutant.DialectIgnored, mutant.RemoteRefFetched, mutant.RemoteRefUnchecked},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) { judgeOutputSchema(c, t) })
})

// judgeOutputSchema runs the client over t against the output-schema fake
// of the era judged (with the check's own listener for the remote $ref in
// 2026-07-28) and judges its tool lines.
func judgeOutputSchema(c *run.C, t check.Transport) {
	modern := c.JudgedEra() == check.Modern
	f := fake{Case: "output-schema"}
	var refs *refListener
	if modern {
		refs = openRefListener(c)
		f.RefURL = refs.url
	}
	x := runOver(c, t, f, target.Invocation{})
	wantReached(c, t, x)
	version := sessionVersion(x, modern)
	if version < outputSchemaSince {
		c.NotApplicable(fmt.Sprintf("over %s the client negotiated %s, which has no outputSchema or structuredContent (%s on)", t, version, outputSchemaSince))
	}
	if refs != nil {
		fetched := refs.seen()
		c.RequireRule("JR-57", len(fetched) == 0, fmt.Sprintf("nothing reaches %s, the URL the outputSchema of %s names in a $ref: a network $ref is never dereferenced",
			refs.url+fakeservers.RemoteRefPath, fakeservers.ToolSchemaRemoteRef), "over %s the client reached it: %s", t, strings.Join(fetched, "; "))
	}
	tools, _ := fakeservers.OutputSchemaOffer(modern, f.RefURL)
	echo := x.Output.Call(fakeservers.ToolEcho)
	if echo == nil || !echo.OK() {
		c.Unimplemented(fmt.Sprintf("over %s the call of %s, which declares no outputSchema, did not succeed (calls: %s), so the failures of the others say nothing of validation; the adapter must call every listed tool",
			t, fakeservers.ToolEcho, run.DescribeCalls(x.Calls)))
	}
	if version >= dialectSince {
		var missing []string
		for _, name := range tools {
			if x.Output.Call(name) == nil {
				missing = append(missing, name)
			}
		}
		c.RequireRule("JR-56", len(missing) == 0 && x.ExitCode == 0, fmt.Sprintf("the client goes on past %s, whose outputSchema names a dialect no validator knows (%s): a line for every tool, and a normal exit",
			fakeservers.ToolSchemaDialect, fakeservers.UnknownDialect), "over %s no line for %s; the adapter exited %d", t, strings.Join(missing, ", "), x.ExitCode)
	}
	plain := x.Output.Call(fakeservers.ToolSchemaCountInvalid)
	if plain == nil {
		c.Unimplemented(fmt.Sprintf("over %s the adapter reported no line for %s (calls: %s); it must call every listed tool", t, fakeservers.ToolSchemaCountInvalid, run.DescribeCalls(x.Calls)))
	}
	c.RequireRuleAt("TL-12", check.SHOULD, !plain.OK(), fmt.Sprintf("the call of %s, whose structuredContent {\"count\":\"three\"} breaks its outputSchema (count an integer), fails: clients validate structuredContent", plain.Tool),
		"over %s it succeeded: the client does not validate structuredContent, so how it validates (2020-12 by default, JR-55; an unknown dialect refused, JR-56; no network $ref, JR-57) was not judged either", t)
	judgeDialects(c, t, x, version)
	if modern {
		remote := x.Output.Call(fakeservers.ToolSchemaRemoteRef)
		c.RequireRuleAt("JR-57", check.SHOULD, remote != nil && !remote.OK(), fmt.Sprintf("the call of %s, whose outputSchema's $ref to %s cannot be resolved without fetching it, fails validation",
			fakeservers.ToolSchemaRemoteRef, refs.url+fakeservers.RemoteRefPath), "over %s it %s", t, outcomeOf(remote))
	}
}

// judgeDialects judges, in a session of 2025-11-25 on, the tools whose
// schema reads differently under 2020-12 (JR-55) and the one whose dialect
// no validator knows (JR-56).
func judgeDialects(c *run.C, t check.Transport, x *exchange, version string) {
	if version < dialectSince {
		c.Note("over %s the client negotiated %s: JSON Schema 2020-12 is the default dialect from %s on, so JR-55 and JR-56 were not judged", t, version, dialectSince)
		return
	}
	valid, broken, dialect := x.Output.Call(fakeservers.ToolSchemaTupleValid), x.Output.Call(fakeservers.ToolSchemaTupleInvalid), x.Output.Call(fakeservers.ToolSchemaDialect)
	c.RequireRule("JR-55", valid != nil && valid.OK(), fmt.Sprintf("the call of %s succeeds: its structuredContent {\"pair\":[\"a\",1,2]} conforms to its outputSchema, which has no $schema, under JSON Schema 2020-12 (prefixItems holds the first item to a string, items the rest to integers)",
		fakeservers.ToolSchemaTupleValid), "over %s it %s: the client read the schema by another dialect", t, outcomeOf(valid))
	c.RequireRule("JR-55", broken != nil && !broken.OK(), fmt.Sprintf("the call of %s fails: its structuredContent {\"pair\":[1,2]} breaks its outputSchema, which has no $schema, under JSON Schema 2020-12 (prefixItems holds the first item to a string)",
		fakeservers.ToolSchemaTupleInvalid), "over %s it %s: the client validated by another dialect, or without prefixItems", t, outcomeOf(broken))
	c.RequireRule("JR-56", dialect != nil && !dialect.OK(), fmt.Sprintf("the call of %s fails with an error: its outputSchema's dialect %s is not supported",
		fakeservers.ToolSchemaDialect, fakeservers.UnknownDialect), "over %s it %s", t, outcomeOf(dialect))
	if !namesDialect(dialect.Error) {
		// What an error says is free text: a word test could fail an
		// innocent one, so it is told, not judged.
		c.Note("over %s the error of %s does not seem to name the dialect (no %q, \"dialect\", \"$schema\" or \"meta-schema\"): %s",
			t, fakeservers.ToolSchemaDialect, fakeservers.UnknownDialect, dialect.Error)
	}
}

// namesDialect reports whether a call's error says what was unsupported:
// the dialect's URL, or the words dialect, $schema or meta-schema.
func namesDialect(text string) bool {
	lower := strings.ToLower(text)
	for _, word := range []string{strings.ToLower(fakeservers.UnknownDialect), "dialect", "$schema", "metaschema", "meta-schema"} {
		if strings.Contains(lower, word) {
			return true
		}
	}
	return false
}

// outcomeOf says how call ended, for a message.
func outcomeOf(call *target.Call) string {
	switch {
	case call == nil:
		return "has no line"
	case call.OK():
		return "succeeded"
	}
	return fmt.Sprintf("failed (%s)", call.Error)
}

// sessionVersion is the protocol version of the client's session: the
// modern one, or what the legacy fake's initialize reply named for the
// version the client proposed ("" when it sent no initialize).
func sessionVersion(x *exchange, modern bool) string {
	if modern {
		return mcp.ModernVersion
	}
	for _, m := range x.Sent {
		if m.Kind() == jsonrpc.KindRequest && m.Method == fakeservers.MethodInitialize {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p) // unreadable: the fake's fallback version
			return fakeservers.NegotiatedVersion(p.ProtocolVersion)
		}
	}
	return ""
}

// refListener is the check's own HTTP listener on the loopback interface,
// whose URL the remote $ref of the output-schema fake names: nothing may
// reach it (JR-57). It records every connection and request, answers 404,
// and closes when the check ends.
type refListener struct {
	url  string
	mu   sync.Mutex
	hits []string
}

// openRefListener opens the listener; a failure to open it is the
// harness's.
func openRefListener(c *run.C) *refListener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		c.Errorf("open the listener the remote $ref names: %v", err)
	}
	l := &refListener{url: "http://" + ln.Addr().String()}
	srv := &http.Server{
		ReadHeaderTimeout: c.Options().Prompt,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			l.record(r.Method + " " + r.URL.Path)
			http.NotFound(w, r)
		}),
		ConnState: func(conn net.Conn, state http.ConnState) {
			if state == http.StateNew {
				l.record("a connection from " + conn.RemoteAddr().String())
			}
		},
	}
	go func() { _ = srv.Serve(ln) }()
	c.Cleanup(func() { _ = srv.Close() })
	return l
}

func (l *refListener) record(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hits = append(l.hits, what)
}

// seen is what reached the listener so far, in order.
func (l *refListener) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.hits...)
}
