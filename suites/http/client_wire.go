package http

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/wireschema"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Every message the client POSTs matches the published JSON Schema of the
// negotiated version: JR-01, JR-03, JR-04, JR-13, LC-03.

var _ = clientCheck(run.ClientWireCheck("http", mutant.InitializeWithoutCapabilities), func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "well-behaved"}, target.Invocation{})
	wantReached(c, r)
	var msgs []run.WireMessage
	var proposed, negotiated string
	for _, q := range r.Requests {
		if q.Method != "POST" {
			continue
		}
		msgs = append(msgs, run.WireMessage{Raw: []byte(q.Body)})
		initialize := false
		for _, m := range q.Messages {
			if m.Method == "initialize" {
				var p struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				_ = json.Unmarshal(m.Params, &p)
				proposed, initialize = p.ProtocolVersion, true
			}
		}
		// The negotiated version is the one the POSTs after initialize
		// name; a server/discover probe before it names 2026-07-28, and
		// is judged by that version's schema on its own (its _meta).
		if v := q.Header.Get(mcp.HeaderProtocolVersion); v != "" && negotiated == "" && proposed != "" && !initialize {
			negotiated = v
		}
	}
	if len(msgs) == 0 {
		c.Errorf("the client POSTed nothing to %s (the adapter exited %d): the adapter must connect its client to that URL", target.EnvServerURL, r.ExitCode)
	}
	if negotiated == "" {
		negotiated = proposed // 2025-03-26 sends no version header
	}
	c.RequireSchemaValid("client", "http", msgs, negotiated, wireschema.LatestLegacy)
})
