package fakeservers

import "github.com/mcpconform/mcpconform/harness/jsonrpc"

// VersionUnspoken is the protocolVersion the version-unspoken cases answer
// initialize with: no MCP specification has it, so no client speaks it, and
// one that gets it must disconnect (LC-10).
const VersionUnspoken = "1999-01-01"

// UnspokenCase describes the version-unspoken case both fakes have.
const UnspokenCase = "legacy: answers initialize with protocolVersion " + VersionUnspoken + ", which no client speaks, and otherwise as well-behaved"

// InitializeReplyIn is InitializeReply(m) with protocolVersion version,
// or as it is when version is empty.
func InitializeReplyIn(m *jsonrpc.Message, version string) *jsonrpc.Message {
	if version == "" {
		return InitializeReply(m)
	}
	return ResultMessage(m.ID, InitializeResult{ProtocolVersion: version, Capabilities: Offer{}.capabilities(), ServerInfo: fakeInfo})
}

// NegotiatedVersion is the version a legacy fake's initialize reply names
// for a client that proposed proposed: that one when the fake speaks it,
// 2025-11-25 otherwise.
func NegotiatedVersion(proposed string) string { return negotiated(proposed) }
