package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/suites/run"
)

// servedEra is one era of a conversation eachEraDeclaring holds: the
// version the peer speaks (the legacy version the server negotiated, or
// 2026-07-28) and the capabilities the server declared in it.
type servedEra struct {
	version string
	caps    map[string]json.RawMessage
}

// eachEraDeclaring runs body once for every era the server serves over
// each transport, each in a verdict scope of its own (run.C.JudgeInEra):
// after initialize in the legacy era, after server/discover in the
// 2026-07-28 one, each on a fresh connection. An era whose capabilities do
// not declare capability is not judged; when none does, the check is
// UNIMPLEMENTED, way saying what the server must offer to be judged.
func eachEraDeclaring(c *run.C, capability, way string, body func(p *peer, e servedEra)) {
	eachTransport(c, func(p *peer) {
		t := check.Transport(p.transport)
		eras := c.ServerEras(t)
		var undeclared []string
		var judged []run.Judgement
		judge := func(era check.Era, q *peer, e servedEra) {
			if e.caps[capability] == nil {
				undeclared = append(undeclared, e.version)
				return
			}
			judged = append(judged, c.JudgeInEra(era, func() { body(q, e) }))
		}
		if eras.Legacy || !eras.Modern {
			r := p.initialize(v1125, nil)
			judge(check.Legacy, p, servedEra{r.ProtocolVersion, r.Capabilities})
			p = nil
		}
		if eras.Modern {
			if p == nil {
				p = openPeer(c, t)
			}
			m := p.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
			c.Require(m.Error == nil, "server/discover succeeds ("+p.transport+")", "%s", describe(m))
			var r struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			_ = json.Unmarshal(m.Result, &r)
			judge(check.Modern, p, servedEra{mcp.ModernVersion, r.Capabilities})
		}
		if len(judged) == 0 {
			c.Unimplemented(fmt.Sprintf("the server declares no %s capability (%s, %s); %s",
				capability, strings.Join(undeclared, " and "), t, way))
		}
		c.Conclude(judged)
	})
}
