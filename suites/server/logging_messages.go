package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Log messages well-formed in each era: LG-07 (level, an optional string
// logger, data), LG-02 (the eight levels).

// logMessageProblem says what is wrong with the params of one
// notifications/message: a level that is not one of the eight, a logger
// that is not a string, no data. It is "" when nothing is.
func logMessageProblem(params json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "params that are not an object"
	}
	var bad []string
	if level, _ := jsonString(p["level"]); indexOf(levels, level) < 0 {
		bad = append(bad, "a level that is not one of the eight")
	}
	if logger, present := p["logger"]; present {
		if _, ok := jsonString(logger); !ok {
			bad = append(bad, "a logger that is not a string")
		}
	}
	if _, present := p["data"]; !present {
		bad = append(bad, "no data")
	}
	return strings.Join(bad, "; ")
}

var _ = serverCheck(check.Descriptor{
	ID:     "server.logging.messages-well-formed",
	Serial: true, // the log level is session state
	Title: "every notifications/message the logging fixtures send at the lowest level (after logging/setLevel debug, or with _meta logLevel debug in 2026-07-28) " +
		"has one of the eight levels, a string logger if any, and data",
	Requirement: "notifications/message params carry a level, one of the eight RFC 5424 severities, data (any JSON value), and optionally a logger, which is a string.",
	Rules:       []string{"LG-02", "LG-07"},
	Eras:        check.BothEras,
	Capability:  "logging",
	KilledBy:    []mutant.Name{mutant.LogLoggerNotString, mutant.LogLevelMalformed},
}, func(c *run.C) {
	eachEraDeclaring(c, "logging", "declare logging and map a tool that logs (logging: {tool: NAME} in a --fixtures file)", func(p *peer, e servedEra) {
		version := e.version
		if p.modern == "" {
			set := p.request("logging/setLevel", map[string]any{"level": levels[0]})
			c.Require(set.Error == nil, fmt.Sprintf("logging/setLevel %s succeeds (%s, %s)", levels[0], version, p.transport), "%s", describe(set))
		}
		seen := 0
		for _, f := range fixtures(c, p, "logging") {
			p.unread = nil
			var m *jsonrpc.Message
			if p.modern != "" {
				m = p.callModern(f, map[string]any{mcp.MetaLogLevel: levels[0]})
			} else {
				m = p.request("tools/call", p.callParams(f, nil))
			}
			c.Require(m.Error == nil, fmt.Sprintf("%s answers (%s, %s)", f.Tool, version, p.transport), "%s", describe(m))
			for _, lm := range logMessages(p.unread) {
				seen++
				problem := logMessageProblem(lm.raw)
				c.Require(problem == "", fmt.Sprintf("notifications/message from %s with a level among %s, a string logger if any, and data (%s, %s)",
					f.Tool, strings.Join(levels, ", "), version, p.transport), "%s: params %s", problem, clip(string(lm.raw)))
			}
		}
		if seen == 0 {
			c.Unimplemented(fmt.Sprintf("the logging fixtures sent no notifications/message at level %s (%s, %s); map a tool that logs in a --fixtures file", levels[0], version, p.transport))
		}
	})
})
