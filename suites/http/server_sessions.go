package http

import (
	"fmt"
	nethttp "net/http"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Session ids that cannot be guessed (HT-51, HT-59) and a request without
// the version header (HT-71).

// sessionsSampled is how many sessions the session-id check opens: enough
// that random ids share no first or last character by chance (for three
// ids of 16 hexadecimal characters one run in 128 would, and be taken for
// ids that vary in 15), 2 in 65536 with five.
const sessionsSampled = 5

// unguessableChars is how many characters of a session id must differ
// between sessions: 16 characters of even a hexadecimal alphabet are 64
// bits, where a counter or a timestamp varies in a few. No number of
// samples proves an id random; this finds ids that are evidently not.
const unguessableChars = 16

var _ = serverCheck(check.Descriptor{
	ID:    "http.server.session.ids-unguessable",
	Title: fmt.Sprintf("%d sessions get %d different session ids, each differing from the others in at least %d characters", sessionsSampled, sessionsSampled, unguessableChars),
	Requirement: "Session ids are globally unique and cryptographically strong (a secure UUID, a JWT, a hash): never repeated, never a counter or another value " +
		"a client could guess from its own id.",
	Rules:    []string{"HT-51", "HT-59"},
	KilledBy: []mutant.Name{mutant.SequentialSessionIDs},
}, func(c *run.C) {
	p := newProbe(c)
	var ids []string
	for range sessionsSampled {
		ids = append(ids, sessionful(c, p).ID)
	}
	for i, id := range ids {
		c.Require(!slices.Contains(ids[:i], id), "a different session id for each session", "session %d got the id %q again", i+1, id)
	}
	c.Require(varyingChars(ids) >= unguessableChars, fmt.Sprintf("the ids differ in at least %d characters (all but a common prefix and suffix)", unguessableChars),
		"ids %q differ in %d characters: a counter or a clock, which a client can guess from its own", ids, varyingChars(ids))
})

// varyingChars is the length of the shortest id without the prefix and
// suffix that all ids share.
func varyingChars(ids []string) int {
	shortest := ids[0]
	for _, id := range ids {
		if len(id) < len(shortest) {
			shortest = id
		}
	}
	prefix, suffix := len(shortest), len(shortest)
	for _, id := range ids {
		n := 0
		for n < prefix && id[n] == shortest[n] {
			n++
		}
		prefix = n
		n = 0
		for n < suffix && id[len(id)-1-n] == shortest[len(shortest)-1-n] {
			n++
		}
		suffix = n
	}
	return max(len(shortest)-prefix-suffix, 0)
}

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.protocol-version.missing-assumed",
	Title:       "after initialize, a request without MCP-Protocol-Version is served, not refused",
	Requirement: "A server that receives no MCP-Protocol-Version header, and has no other way to tell the version, assumes 2025-03-26: it serves the request rather than refusing it.",
	Rules:       []string{"HT-71"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.MissingVersionRefused},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	h := s.headers()
	delete(h, mcp.HeaderProtocolVersion)
	id := p.id()
	r := p.post(p.message(id, "ping", nil), h, id, 0)
	c.Require(r.Status == nethttp.StatusOK && r.response(id) != nil && r.response(id).Error == nil,
		"200 with the ping's result", "%s", r.describe())
})
