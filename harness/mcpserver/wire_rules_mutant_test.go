package mcpserver

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// openedPeer is a peer of the server (or mutant m) ready for requests:
// past the handshake, or without one for 2026-07-28 requests when modern,
// whose params (with nothing else) it returns.
func openedPeer(t *testing.T, m mutant.Name, modern bool) (*peer, string) {
	p := newPeer(t, m)
	if modern {
		return p, modernParams(mcp.ModernVersion, "")
	}
	p.initialize("{}")
	return p, "{}"
}

// metaKeyBroken observes the _meta keys of a tools/list result (legacy,
// or 2026-07-28 when modern) and reports a key bad accepts.
func metaKeyBroken(modern bool, bad func(key, value string) bool) observer {
	return func(t *testing.T, m mutant.Name) (bool, string) {
		p, params := openedPeer(t, m, modern)
		var r struct {
			Meta map[string]any `json:"_meta"`
		}
		_ = json.Unmarshal(p.call("tools/list", params).Result, &r)
		for k, v := range r.Meta {
			if bad(k, fmt.Sprint(v)) {
				return true, fmt.Sprintf("the _meta key %q: %v", k, v)
			}
		}
		return false, fmt.Sprintf("_meta %v", r.Meta)
	}
}

// unknownMethodError observes the error a request for an unknown method
// gets (2026-07-28 when modern) and reports one bad accepts.
func unknownMethodError(modern bool, bad func(e *jsonrpc.Error) bool) observer {
	return func(t *testing.T, m mutant.Name) (bool, string) {
		p, params := openedPeer(t, m, modern)
		resp := p.call("mcpconform/no-such-method", params)
		if resp.Error == nil {
			t.Fatalf("an unknown method got a result: %s", resp.Result)
		}
		return bad(resp.Error), fmt.Sprintf("error %d %q data %s", resp.Error.Code, resp.Error.Message, resp.Error.Data)
	}
}

var (
	label       = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)
	keyName     = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
	traceParent = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
)

func prefixLabels(key string) []string {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return nil
	}
	return strings.Split(prefix, ".")
}

func init() {
	serverRuleOf[mutant.MetaPrefixInvalid] = metaKeyBroken(false, func(k, _ string) bool {
		for _, l := range prefixLabels(k) {
			if !label.MatchString(l) {
				return true
			}
		}
		return false
	})
	serverRuleOf[mutant.MetaNameInvalid] = metaKeyBroken(false, func(k, _ string) bool {
		_, name, _ := strings.Cut(k, "/")
		return !keyName.MatchString(name)
	})
	serverRuleOf[mutant.MetaPrefixReserved0618] = metaKeyBroken(false, func(k, _ string) bool {
		l := prefixLabels(k)
		return len(l) > 1 && (l[0] == "modelcontextprotocol" || l[0] == "mcp")
	})
	serverRuleOf[mutant.MetaPrefixReserved] = metaKeyBroken(false, func(k, _ string) bool {
		return strings.HasPrefix(k, "io.modelcontextprotocol/") && k != mcp.MetaServerInfo
	})
	serverRuleOf[mutant.ResultTraceparentInvalid] = metaKeyBroken(true, func(k, v string) bool { return k == "traceparent" && !traceParent.MatchString(v) })
	serverRuleOf[mutant.ToolSchemaDraft04] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		for _, tool := range listedTools(t, p, "2025-11-25") {
			if _, err := wireschema.CompileToolSchema(tool.InputSchema); err != nil {
				return true, fmt.Sprintf("the inputSchema of %s, read as JSON Schema 2020-12: %v", tool.Name, err)
			}
		}
		return false, "every inputSchema a JSON Schema 2020-12"
	}
	serverRuleOf[mutant.ServerInfoMetaMissing] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("tools/list", modernParams(mcp.ModernVersion, ""))
		var r struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(resp.Result, &r)
		return r.Meta[mcp.MetaServerInfo] == nil, fmt.Sprintf("_meta of the 2026-07-28 tools/list result: %v", r.Meta)
	}
	serverRuleOf[mutant.ExtensionUnprefixed] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, ""))
		var r struct {
			Capabilities struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			} `json:"capabilities"`
		}
		_ = json.Unmarshal(resp.Result, &r)
		for id := range r.Capabilities.Extensions {
			if !strings.Contains(id, "/") {
				return true, "the extension " + id
			}
		}
		return false, fmt.Sprintf("extensions %v", r.Capabilities.Extensions)
	}
	serverRuleOf[mutant.ErrorCodeSpecRange] = unknownMethodError(true, func(e *jsonrpc.Error) bool { return e.Code <= -32023 && e.Code >= -32099 })
	serverRuleOf[mutant.ErrorCodeLegacyRange] = unknownMethodError(true, func(e *jsonrpc.Error) bool { return e.Code <= -32000 && e.Code >= -32019 })
	serverRuleOf[mutant.ErrorCodeReservedRange] = unknownMethodError(true, func(e *jsonrpc.Error) bool { return e.Code < -32099 && e.Code > -32600 })
	serverRuleOf[mutant.ErrorMessageMultiline] = unknownMethodError(false, func(e *jsonrpc.Error) bool { return strings.Contains(e.Message, "\n") })
	serverRuleOf[mutant.URLElicitationMisused] = unknownMethodError(false, func(e *jsonrpc.Error) bool {
		return e.Code == jsonrpc.CodeURLElicitationRequired && !strings.Contains(string(e.Data), "elicitations")
	})
	serverRuleOf[mutant.ServerRequestIDReused] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m).answering(replyError(jsonrpc.CodeMethodNotFound))
		p.initialize(`{"sampling":{}}`)
		p.tool("test_sampling", `{"prompt":"x"}`)
		p.tool("test_sampling", `{"prompt":"y"}`)
		seen := map[string]bool{}
		for _, r := range ofMethod(p.drain(), "sampling/createMessage") {
			if seen[r.ID.Key()] {
				return true, "a second sampling/createMessage with id " + r.ID.String()
			}
			seen[r.ID.Key()] = true
		}
		return false, fmt.Sprintf("%d sampling requests, each with its own id", len(seen))
	}
	serverRuleOf[mutant.NotifiesBeforeInitReply] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.call("initialize", initParams("2025-11-25", "{}"))
		sent := p.drain()
		return len(sent) > 1, fmt.Sprintf("the server sent %v", methods(sent))
	}
	serverRuleOf[mutant.RequestsBeforeInitDone] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.call("initialize", initParams("2025-11-25", `{"roots":{}}`))
		p.drain()
		p.call("ping", "")
		requests := 0
		for _, s := range p.drain() {
			if s.Kind() == jsonrpc.KindRequest {
				requests++
			}
		}
		return requests > 0, fmt.Sprintf("%d request(s) while a ping before notifications/initialized was answered", requests)
	}
}
