package run

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// WireMessage is one message the implementation under test sent, as it
// crossed the wire, with the method of the request it answers when it is a
// response ("" when unknown).
type WireMessage struct {
	Raw     []byte
	Answers string
}

// ClientWireCheck is the descriptor of the client's schema check over
// transport (stdio or http): every message the client sends to the
// well-behaved fake validates against the negotiated version's schema.
func ClientWireCheck(transport string, killedBy ...mutant.Name) check.Descriptor {
	return check.Descriptor{
		ID: transport + ".client.wire.schema-valid",
		Title: "every message the client sends to the well-behaved fake (handshake, tools/list, its tool calls) validates against " +
			"the published JSON Schema of the negotiated version",
		Requirement: "Every message is a JSON-RPC 2.0 message of the shape the MCP schema of the negotiated protocol version defines: " +
			"initialize with protocolVersion, capabilities and clientInfo, each request and notification by its method.",
		Rules:    []string{"JR-01", "JR-03", "JR-13", "LC-03", "JR-04"},
		KilledBy: killedBy,
	}
}

// maxViolationsShown bounds a failure message.
const maxViolationsShown = 5

// RequireSchemaValid fails the check unless every message of who (over
// transport) validates against the MCP JSON Schema of version, the version
// negotiated; a message whose _meta names another version with a schema
// (a 2026-07-28 request) is judged by that one. A version without a schema
// is judged by fallback's.
func (c *C) RequireSchemaValid(who, transport string, msgs []WireMessage, version, fallback string) {
	s, err := wireschema.For(version)
	if err != nil {
		if s, err = wireschema.For(fallback); err != nil {
			c.Errorf("no published schema for the fallback version %s: %v", fallback, err)
		}
	}
	var bad []string
	for _, m := range msgs {
		judge := s
		if named, err := wireschema.For(metaVersion(m.Raw)); err == nil {
			judge = named
		}
		if v := judge.Validate(m.Raw, m.Answers); v != nil {
			bad = append(bad, v.Error())
		}
	}
	shown := bad[:min(len(bad), maxViolationsShown)]
	c.Require(len(bad) == 0, fmt.Sprintf("every message the %s sent validates against the MCP %s schema (%s)", who, s.Version(), transport),
		"%d of its %d messages do not:\n  %s", len(bad), len(msgs), strings.Join(shown, "\n  "))
}

// metaVersion is the protocol version a request names in its _meta
// (2026-07-28), "" for none.
func metaVersion(raw []byte) string {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(m.Params.Meta[mcp.MetaProtocolVersion], &v)
	return v
}
