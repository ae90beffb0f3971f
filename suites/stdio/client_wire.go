package stdio

import (
	"encoding/json"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/wireschema"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Every message the client sends matches the published JSON Schema of the
// negotiated version: JR-01, JR-03, JR-04, JR-13, LC-03.

var _ = clientCheck(run.ClientWireCheck("stdio", mutant.InitializeWithoutCapabilities), func(c *run.C) {
	r := c.RunStdioClient(stdiofake.Options{Case: "well-behaved"}, target.Invocation{})
	wantRead(c, r)
	msgs, version := clientMessages(r.Record)
	if len(msgs) == 0 {
		c.Errorf("the client sent nothing to the server it was given (the adapter exited %d): the adapter must connect its client to %s", r.ExitCode, target.EnvServerCommand)
	}
	c.RequireSchemaValid("client", "stdio", msgs, version, wireschema.LatestLegacy)
})

// clientMessages are the lines the client sent to the fake, each response
// with the method of the fake's request it answers, and the version the
// fake's initialize result named. Blank lines are left to ST-04's check.
func clientMessages(rec *stdiofake.Record) ([]run.WireMessage, string) {
	fakeRequests := map[string]string{} // id (JSON text) → method, of the fake's requests
	var out []run.WireMessage
	var initID, version string
	for _, e := range rec.Events {
		m, err := jsonrpc.Decode([]byte(e.Line))
		switch {
		case e.Type == stdiofake.EventRecv && strings.TrimSpace(e.Line) != "":
			var answers string
			if err == nil && m.Kind() == jsonrpc.KindRequest && m.Method == "initialize" {
				initID = m.ID.Key()
			}
			if err == nil && (m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError) {
				answers = fakeRequests[m.ID.Key()]
			}
			out = append(out, run.WireMessage{Raw: []byte(e.Line), Answers: answers})
		case e.Type != stdiofake.EventSend || err != nil:
		case m.Kind() == jsonrpc.KindRequest:
			fakeRequests[m.ID.Key()] = m.Method
		case m.Kind() == jsonrpc.KindResult && m.ID.Key() == initID:
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Result, &res)
			version = res.ProtocolVersion
		}
	}
	return out, version
}
