package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// modernParams are the params of a 2026-07-28 request naming version, with
// extra fields of params (a JSON object's members, or "").
func modernParams(version, extra string) string {
	p := fmt.Sprintf(`{"_meta":{%q:%q,%q:{}}`, mcp.MetaProtocolVersion, version, mcp.MetaClientCapabilities)
	if extra != "" {
		p += "," + extra
	}
	return p + "}"
}

// discoverResult is the shape of a DiscoverResult (LC-41).
type discoverResult struct {
	SupportedVersions []string                   `json:"supportedVersions"`
	Capabilities      map[string]json.RawMessage `json:"capabilities"`
	ResultType        string                     `json:"resultType"`
	TTLMs             *int64                     `json:"ttlMs"`
	CacheScope        string                     `json:"cacheScope"`
	Meta              map[string]json.RawMessage `json:"_meta"`
}

func TestServerDiscover(t *testing.T) {
	p := newPeer(t, "")
	var r discoverResult
	resp := p.call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, ""))
	wantServerResult(t, resp)
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.SupportedVersions, mcp.ModernProtocolVersions) || r.Capabilities["tools"] == nil || r.ResultType != "complete" ||
		r.TTLMs == nil || *r.TTLMs < 0 || r.CacheScope != "public" || r.Meta[mcp.MetaServerInfo] == nil {
		t.Errorf("discover result %s", resp.Result)
	}
}

func TestServerModernRequestsAreStateless(t *testing.T) {
	p := newPeer(t, "")
	// No initialize: a modern request carries its own context (JR-51).
	resp := p.call("tools/list", modernParams(mcp.ModernVersion, ""))
	wantServerResult(t, resp, `"resultType":"complete"`, mcp.MetaServerInfo, `"test_simple_text"`)
	// The handshake, ping and setLevel are gone from the modern era.
	for _, method := range []string{"ping", "logging/setLevel", "initialize"} {
		wantServerError(t, p.call(method, modernParams(mcp.ModernVersion, "")), jsonrpc.CodeMethodNotFound)
	}
	// Without a requested logLevel, no log notifications (LG-12).
	p.call("tools/call", modernParams(mcp.ModernVersion, `"name":"test_tool_with_logging","arguments":{}`))
	if sent := p.drain(); slices.Contains(methods(sent), "notifications/message") {
		t.Errorf("sent %v without a logLevel", methods(sent))
	}
	// With one, the threshold applies.
	p.call("tools/call", fmt.Sprintf(`{"_meta":{%q:%q,%q:{},%q:"debug"},"name":"test_tool_with_logging","arguments":{}}`,
		mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities, mcp.MetaLogLevel))
	if sent := p.drain(); !slices.Contains(methods(sent), "notifications/message") {
		t.Errorf("sent %v with logLevel debug", methods(sent))
	}
	// A legacy request still needs the handshake: this server is dual-era.
	wantServerError(t, p.call("tools/list", `{}`), jsonrpc.CodeInvalidRequest)
}

func TestServerUnsupportedVersion(t *testing.T) {
	p := newPeer(t, "")
	resp := p.call(mcp.MethodDiscover, modernParams("2099-01-01", ""))
	wantServerError(t, resp, jsonrpc.CodeUnsupportedProtocolVersion)
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if json.Unmarshal(resp.Error.Data, &data) != nil || !slices.Equal(data.Supported, mcp.ModernProtocolVersions) || data.Requested != "2099-01-01" {
		t.Errorf("data %s", resp.Error.Data)
	}
}

func TestServerMissingMeta(t *testing.T) {
	p := newPeer(t, "")
	for _, params := range []string{
		`{}`, // server/discover is modern by its method: it still needs _meta
		fmt.Sprintf(`{"_meta":{%q:%q}}`, mcp.MetaProtocolVersion, mcp.ModernVersion),
		fmt.Sprintf(`{"_meta":{%q:7,%q:{}}}`, mcp.MetaProtocolVersion, mcp.MetaClientCapabilities),
		fmt.Sprintf(`{"_meta":{%q:%q,%q:[]}}`, mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities),
	} {
		wantServerError(t, p.call(mcp.MethodDiscover, params), jsonrpc.CodeInvalidParams)
	}
}

func TestServerEras(t *testing.T) {
	legacy := newPeerWith(t, Options{Era: EraLegacy})
	wantServerError(t, legacy.call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, "")), jsonrpc.CodeMethodNotFound)
	legacy.initialize("{}")
	wantServerError(t, legacy.call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, "")), jsonrpc.CodeMethodNotFound)

	modern := newPeerWith(t, Options{Era: EraModern})
	// A modern-only server names its versions when asked to initialize (LC-48).
	resp := modern.call("initialize", initParams("2025-11-25", "{}"))
	wantServerError(t, resp, jsonrpc.CodeUnsupportedProtocolVersion)
	if !json.Valid(resp.Error.Data) || !slices.Contains(dataSupported(resp), mcp.ModernVersion) {
		t.Errorf("initialize error data %s", resp.Error.Data)
	}
	wantServerError(t, modern.call("tools/list", `{}`), jsonrpc.CodeInvalidParams)
	wantServerResult(t, modern.call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, "")), `"supportedVersions"`)

	if _, err := New(Options{Era: "future"}); err == nil {
		t.Error("an unknown era is accepted")
	}
}

func dataSupported(resp *jsonrpc.Message) []string {
	var data struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(resp.Error.Data, &data)
	return data.Supported
}

func init() {
	serverRuleOf[mutant.DiscoverNoSupportedVersions] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, ""))
		var r discoverResult
		_ = json.Unmarshal(resp.Result, &r)
		return len(r.SupportedVersions) == 0, string(resp.Result)
	}
	serverRuleOf[mutant.ResultTypeMissing] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("tools/list", modernParams(mcp.ModernVersion, ""))
		var r discoverResult
		_ = json.Unmarshal(resp.Result, &r)
		return r.ResultType != "complete", string(resp.Result)
	}
	serverRuleOf[mutant.UnsupportedVersionInvalidParams] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call(mcp.MethodDiscover, modernParams("2099-01-01", ""))
		return resp.Error == nil || resp.Error.Code != jsonrpc.CodeUnsupportedProtocolVersion, fmt.Sprint(resp.Error)
	}
	serverRuleOf[mutant.MissingMetaAccepted] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call(mcp.MethodDiscover, fmt.Sprintf(`{"_meta":{%q:%q}}`, mcp.MetaProtocolVersion, mcp.ModernVersion))
		return resp.Error == nil, resp.Kind().String()
	}
}

func TestServerSessionThatHandshookStaysLegacy(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	// LC-49: after initialize, _meta naming an unserved version changes
	// nothing; the request is a legacy one.
	wantServerResult(t, p.call("tools/list", modernParams("2099-01-01", "")), `"tools"`)
	wantServerError(t, p.call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, "")), jsonrpc.CodeMethodNotFound)
}

func TestServerModernCapabilitiesAndHints(t *testing.T) {
	p := newPeer(t, "")
	// JR-49: a tool that needs a capability the request does not declare.
	resp := p.call("tools/call", modernParams(mcp.ModernVersion, `"name":"test_sampling","arguments":{"prompt":"x"}`))
	wantServerError(t, resp, jsonrpc.CodeMissingClientCapability)
	if !strings.Contains(string(resp.Error.Data), `"requiredCapabilities":{"sampling":{}}`) {
		t.Errorf("data %s", resp.Error.Data)
	}
	// Declared: the tool asks in an InputRequiredResult (MR-01), and no
	// request goes to the client (JR-17).
	declared := fmt.Sprintf(`{"_meta":{%q:%q,%q:{"sampling":{}}},"name":"test_sampling","arguments":{"prompt":"x"}}`,
		mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities)
	wantServerResult(t, p.call("tools/call", declared), `"resultType":"input_required"`, `"method":"sampling/createMessage"`)
	if sent := p.drain(); slices.Contains(methods(sent), "sampling/createMessage") {
		t.Errorf("a modern request made the server send %v", methods(sent))
	}
	// TL-19: lists and reads carry cache hints.
	for _, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		wantServerResult(t, p.call(method, modernParams(mcp.ModernVersion, "")), `"ttlMs":`, `"cacheScope":"public"`)
	}
	wantServerResult(t, p.call("resources/read", modernParams(mcp.ModernVersion, `"uri":"test://static-text"`)), `"ttlMs":`)
	// RS-10: an unknown resource is -32602 in this era.
	wantServerError(t, p.call("resources/read", modernParams(mcp.ModernVersion, `"uri":"test://nowhere"`)), jsonrpc.CodeInvalidParams)
}

func init() {
	serverRuleOf[mutant.CapabilityNeededAsResult] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("tools/call", modernParams(mcp.ModernVersion, `"name":"test_sampling","arguments":{"prompt":"x"}`))
		return resp.Error == nil || resp.Error.Code != jsonrpc.CodeMissingClientCapability, fmt.Sprint(resp.Error, string(resp.Result))
	}
	serverRuleOf[mutant.LogsWithoutLevel] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.call("tools/call", modernParams(mcp.ModernVersion, `"name":"test_tool_with_logging","arguments":{}`))
		sent := methods(p.drain())
		return slices.Contains(sent, "notifications/message"), fmt.Sprint(sent)
	}
}

// statelessSession is the SessionInfo of a transport that serves each
// message apart (a stateless streamable HTTP server).
type statelessSession struct{ testSession }

func (statelessSession) ID() string      { return "" }
func (statelessSession) Stateless() bool { return true }

func TestServerStatelessRequestsAreNotPinnedByAnInitialize(t *testing.T) {
	p := newPeer(t, "")
	p.session = statelessSession{}
	p.initialize("{}")
	// Another client's initialize on a stateless transport pins nothing:
	// a 2026-07-28 request is still answered as one (LC-49 is about a
	// connection, which a stateless transport does not have).
	resp := p.call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, ""))
	wantServerResult(t, resp, `"supportedVersions"`)
}
