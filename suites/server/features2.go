package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The tool list's stability (TL-17, TL-18), list changes announced
// (TL-06, PM-03), an unknown 2026-07-28 logLevel (LG-14), completion of an
// unknown prompt (CP-04, CP-06), tool arguments that break the inputSchema
// (TL-09, TL-15) and listed resource URIs (RS-07, in
// server.resources.read-listed).

var _ = serverCheck(check.Descriptor{
	ID:    "server.tools.list-stable",
	Title: "tools/list asked twice on one connection and once on another names the same tools, in the same order",
	Requirement: "tools/list returns the tools currently available to the requester, which may vary by authorization but not by connection; " +
		"their order is deterministic while the set is unchanged.",
	Rules:      []string{"TL-17", "TL-18"},
	Eras:       check.ModernEra,
	Capability: "tools",
	KilledBy:   []mutant.Name{mutant.ToolsListOrderVaries},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		openModernFeature(c, p, "tools")
		first, again := toolNames(c, p), toolNames(c, p)
		q := openPeer(c, check.Transport(p.transport))
		q.modern = mcp.ModernVersion
		other := toolNames(c, q)
		c.RequireRule("TL-17", slices.Equal(sorted(first), sorted(other)),
			fmt.Sprintf("tools/list names the same tools on two connections (%s)", p.transport), "first connection: %s; second: %s", clip(strings.Join(first, ", ")), clip(strings.Join(other, ", ")))
		for _, l := range [][]string{again, other} {
			c.RequireRuleAt("TL-18", check.SHOULD, slices.Equal(first, l), fmt.Sprintf("tools/list names its unchanged tools in the same order each time (%s)", p.transport),
				"first %s; later %s", clip(strings.Join(first, ", ")), clip(strings.Join(l, ", ")))
		}
	})
})

// toolNames are the names of the tools of every page of tools/list, in
// order.
func toolNames(c *run.C, p *peer) []string {
	var names []string
	for _, t := range listTools(c, p) {
		names = append(names, t.Name)
	}
	return names
}

// sorted is a sorted copy of names.
func sorted(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}

// listChangedRules are the rules that ask for a list's list_changed, by
// the capability that declares it.
var listChangedRules = map[string]string{"tools": "TL-06", "prompts": "PM-03"}

var _ = serverCheck(check.Descriptor{
	ID: "server.list-changed.announced",
	Title: "after a tool that changes the tool or prompt list, a subscriptions/listen stream that opted into that list's changes gets " +
		"notifications/tools/list_changed or notifications/prompts/list_changed",
	Requirement: "A server that declares listChanged for tools or prompts sends notifications/tools/list_changed or notifications/prompts/list_changed " +
		"when the list changes; in 2026-07-28 on the subscriptions/listen streams that opted into them.",
	Rules:    []string{"TL-06", "PM-03"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ListChangeUnannounced},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		f := openModernFeature(c, p, "")
		l := openListen(c, p, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
		honoured := l.asked
		if l.first.Method == mcp.NotificationAcknowledged {
			var ack struct {
				Notifications mcp.SubscriptionFilter `json:"notifications"`
			}
			_ = json.Unmarshal(l.first.Params, &ack)
			honoured = ack.Notifications
		}
		judged := 0
		for _, change := range listChanges {
			capability := listChangedNotifications[change.method]
			opted := capability == "tools" && honoured.ToolsListChanged || capability == "prompts" && honoured.PromptsListChanged
			switch {
			case !declaresListChanged(f.caps, capability):
				c.Note("the server declares no %s.listChanged (%s): its %s was not judged", capability, p.transport, change.method)
				continue
			case !opted:
				c.Note("the listen stream's acknowledgement leaves out %s (%s): not judged", change.method, p.transport)
				continue
			case !announce(c, p, change.role):
				c.Note("no tool for the %q behaviour (%s): %s was not judged", change.role, p.transport, change.method)
				continue
			}
			d := l.p.patience()
			n := l.p.wait(func(m *jsonrpc.Message) bool { return m.Method == change.method }, d)
			c.RequireRule(listChangedRules[capability], n != nil, fmt.Sprintf("%s after the %s tool changed the list (%s)", change.method, change.role, p.transport), "%s", l.p.silence(d))
			judged++
		}
		if judged == 0 {
			c.Unimplemented(fmt.Sprintf("no list change could be caused and observed (%s): the notes say why; declare tools or prompts listChanged "+
				"and map a tool that changes the list in a --fixtures file, e.g. tool-list-change: {tool: NAME}", p.transport))
		}
	})
})

// unknownLogLevel is a logLevel no version of MCP defines.
const unknownLogLevel = "mcpconform-no-such-level"

var _ = serverCheck(check.Descriptor{
	ID:          "server.logging.unknown-level",
	Title:       "a 2026-07-28 request whose _meta logLevel is no log level gets -32602",
	Requirement: "An unrecognised io.modelcontextprotocol/logLevel value in a request's _meta makes the server reject the request with -32602.",
	Rules:       []string{"LG-14"},
	Eras:        check.ModernEra,
	Capability:  "logging",
	KilledBy:    []mutant.Name{mutant.LogLevelUnknownAccepted},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		f := openModernFeature(c, p, "logging")
		method := mcp.MethodDiscover
		for _, l := range paginatedLists {
			if f.caps[l.capability] != nil {
				method = l.method
				break
			}
		}
		params := modernParams(mcp.ModernVersion, nil)
		params["_meta"].(map[string]any)[mcp.MetaLogLevel] = unknownLogLevel
		m := p.modernRequest(method, mcp.ModernVersion, params)
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams,
			fmt.Sprintf("%s with _meta %s %q: error -32602 (%s)", method, mcp.MetaLogLevel, unknownLogLevel, p.transport), "%s", describe(m))
	})
})

// unknownPrompt is a prompt name no server has.
const unknownPrompt = "mcpconform-no-such-prompt"

var _ = serverCheck(check.Descriptor{
	ID:          "server.completion.unknown-prompt",
	Title:       "completion/complete for a prompt the server does not have gets -32602, and never suggestions",
	Requirement: "A server validates completion inputs: a completion/complete whose ref names a prompt the server does not have gets no suggestions, and is answered with -32602 (Invalid params).",
	Rules:       []string{"CP-04", "CP-06"},
	Eras:        check.BothEras,
	Capability:  "completions",
	KilledBy:    []mutant.Name{mutant.CompletionUnknownPromptServed},
}, func(c *run.C) {
	eachEraDeclaring(c, "completions", "declare completions to have completion/complete judged", func(p *peer, e servedEra) {
		m := p.ask("completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": unknownPrompt},
			"argument": map[string]any{"name": "x", "value": ""},
		})
		what := fmt.Sprintf("completion/complete for the unknown prompt %q (%s, %s)", unknownPrompt, e.version, p.transport)
		var r struct {
			Completion struct {
				Values []string `json:"values"`
			} `json:"completion"`
		}
		_ = json.Unmarshal(m.Result, &r)
		c.RequireRuleAt("CP-06", check.MUST, len(r.Completion.Values) == 0, what+": no suggestions for a prompt that does not exist", "%s", clip(string(m.Result)))
		c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, what+": error -32602", "%s", describe(m))
	})
})

// argumentsValidatedSince is the first version in which a tool's argument
// validation failure is a tool-execution error (TL-09).
const argumentsValidatedSince = "2025-11-25"

var _ = serverCheck(check.Descriptor{
	ID: "server.tools.invalid-arguments",
	Title: "tools/call of a listed tool with one argument of the wrong type for its inputSchema gets a result with isError true, " +
		"neither a protocol error nor a success",
	Requirement: "A server validates tool inputs; an argument validation failure is a tool-execution error (a result with isError true) " +
		"so the model can correct itself, not a JSON-RPC error (2025-11-25 on).",
	Rules:      []string{"TL-09", "TL-15"},
	Eras:       check.BothEras,
	Capability: "tools",
	KilledBy:   []mutant.Name{mutant.ToolArgumentsProtocolError},
	Waits:      []check.Wait{toolCallBudget},
}, func(c *run.C) {
	eachEraDeclaring(c, "tools", "declare tools to have their calls judged", func(p *peer, e servedEra) {
		if e.version < argumentsValidatedSince {
			c.NotApplicable(fmt.Sprintf("the server negotiated %s (%s), in which invalid arguments may be a protocol error; TL-09 binds %s on", e.version, p.transport, argumentsValidatedSince))
		}
		slow := run.SlowTools(c.Options().Fixtures)
		for _, t := range listTools(c, p) {
			args, broken := misfitArguments(t.InputSchema)
			if broken == "" || slices.Contains(slow, t.Name) {
				continue
			}
			if ok, _ := c.MayCall(t.Tool); !ok {
				continue
			}
			params := p.callParams(run.Fixture{Tool: t.Name, Arguments: args}, nil)
			if p.modern != "" {
				params = modernParams(p.modern, params)
			}
			id := p.id()
			p.message(id, "tools/call", params)
			m := p.awaitTool(id)
			where := fmt.Sprintf("tools/call of %s with %s, %s (%s, %s)", t.Name, clip(marshal(args)), broken, e.version, p.transport)
			if m == nil {
				p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform: no answer within the tool budget"})
				c.Unimplemented(where + " got no answer within the tool budget and was cancelled; --tool-budget waits longer")
			}
			c.RequireRule("TL-09", m.Error == nil, where+": a result with isError true, not a JSON-RPC error", "%s", describe(m))
			var r struct {
				ResultType string `json:"resultType"`
				IsError    bool   `json:"isError"`
			}
			_ = json.Unmarshal(m.Result, &r)
			if r.ResultType == mcp.ResultTypeInputRequired {
				c.Unimplemented(where + " asked for input before it judged its arguments; map a tool that does not in a --fixtures file")
			}
			c.RequireRule("TL-15", r.IsError, where+": the arguments validated, and refused with isError true", "%s", clip(string(m.Result)))
			return
		}
		c.Unimplemented(fmt.Sprintf("no listed tool that may be called has a property of type string, integer, number or boolean in its inputSchema (%s, %s); list one, or allow it with --tools", e.version, p.transport))
	})
})

// misfitArguments are arguments for a tool with inputSchema that its schema
// accepts (instance.Arguments) but for one top-level property of a simple
// type, which gets a value of another type; broken says which, "" when the
// schema has no such property.
func misfitArguments(inputSchema json.RawMessage) (args map[string]any, broken string) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(inputSchema, &s) != nil {
		return nil, ""
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		typ, _ := s.Properties[name].Type.(string)
		wrong, ok := wrongTyped[typ]
		if !ok {
			continue
		}
		args = instance.Arguments(inputSchema)
		if args == nil {
			args = map[string]any{}
		}
		args[name] = wrong
		return args, fmt.Sprintf("its %s property %q given %s", typ, name, marshal(wrong))
	}
	return nil, ""
}

// wrongTyped is a value that is not of each simple JSON Schema type.
var wrongTyped = map[string]any{
	"string":  12345,
	"integer": "mcpconform-not-an-integer",
	"number":  "mcpconform-not-a-number",
	"boolean": "mcpconform-not-a-boolean",
}

// uriScheme matches the scheme of an RFC 3986 URI and its colon.
var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// uriProblem says why s is not an RFC 3986 URI (RS-07), "" when it is one:
// a scheme, then only unreserved and reserved characters and
// percent-encodings, and at most one '#'.
func uriProblem(s string) string {
	if !uriScheme.MatchString(s) {
		return "it has no scheme (letters, digits, '+', '-', '.', starting with a letter) and colon"
	}
	if strings.Count(s, "#") > 1 {
		return "it has more than one '#'"
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Sprintf("'%%' at byte %d is not followed by two hex digits", i)
			}
		case ch < 0x80 && (ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", ch) >= 0):
		default:
			return fmt.Sprintf("byte %d, %q, is none of the characters RFC 3986 allows unencoded", i, string(rune(ch)))
		}
	}
	return ""
}

// isHex reports whether b is a hex digit.
func isHex(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }
