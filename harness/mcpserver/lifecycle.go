package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// admit says whether a session may make a request of method now: ping and
// initialize always (PG-01), anything else only once initialize has been
// answered (LC-02, LC-06); refused requests get -32600.
func (sess *serverSession) admit(method string, m mutant.Name) *jsonrpc.Error {
	if method == "initialize" || (method == "ping" && m != mutant.NoPingBeforeInit) {
		return nil
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.stage == fresh {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"%s before initialize: the session is not initialized; send initialize first", method)}
	}
	return nil
}

// initialize negotiates the version: the proposed one when the server speaks
// it, otherwise its newest (LC-09). It records the client's capabilities
// (LC-11) and answers with the server's capabilities and serverInfo (LC-04).
// A second initialize in a session negotiates afresh.
func (s *Server) initialize(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		ProtocolVersion *string         `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil || p.ProtocolVersion == nil {
		return nil, mcp.InvalidParams("initialize needs params with a string protocolVersion")
	}
	if len(p.Capabilities) > 0 && p.Capabilities[0] != '{' {
		return nil, mcp.InvalidParams("initialize: capabilities must be an object")
	}
	version := s.opts.ProtocolVersions[0]
	if slices.Contains(s.opts.ProtocolVersions, *p.ProtocolVersion) || s.opts.Mutant == mutant.UnknownVersionEchoed {
		version = *p.ProtocolVersion
	}
	sess := rc.sess
	sess.mu.Lock()
	sess.stage, sess.version, sess.caps = initialized, version, readCapabilities(p.Capabilities, version)
	sess.mu.Unlock()
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    s.declaredCapabilities(false),
		"serverInfo":      map[string]string{"name": Name, "version": Version},
		"instructions":    instructions,
	}
	if s.opts.Mutant == mutant.InitializeNoServerInfo {
		delete(result, "serverInfo")
	}
	if s.opts.Mutant == mutant.NotifiesBeforeInitReply {
		if n, err := jsonrpc.NewNotification("notifications/tools/list_changed", nil); err == nil {
			_ = rc.send(n)
		}
	}
	return result, nil
}

// instructions describe the server to the client's model (LC-04, LC-41).
const instructions = "mcpconform's reference server: fixture tools, resources and prompts for conformance checks."

// serverCapabilities are the features the server offers (TL-01, RS-01,
// PM-01, LG-01, CP-01). Its lists never change, so it declares no
// listChanged. A client may subscribe to its resources (resources/subscribe);
// they never change either, so no update ever follows.
var serverCapabilities = map[string]any{
	"tools":       map[string]any{},
	"resources":   map[string]any{"subscribe": true},
	"prompts":     map[string]any{},
	"logging":     map[string]any{},
	"completions": map[string]any{},
}

// declaredCapabilities are the capabilities initialize declares, and with
// modern those server/discover declares: serverCapabilities, without logging
// under mutant LoggingUndeclared, without resources.subscribe under
// SubscribeUndeclaredServed. The modern era replaced resources/subscribe
// with subscriptions/listen: there the notifications a listen stream carries
// are declared (listenCapabilities), and the tasks extension when served.
func (s *Server) declaredCapabilities(modern bool) map[string]any {
	if s.opts.Mutant != mutant.LoggingUndeclared && s.opts.Mutant != mutant.SubscribeUndeclaredServed && !modern {
		return serverCapabilities
	}
	caps := maps.Clone(serverCapabilities)
	switch s.opts.Mutant {
	case mutant.LoggingUndeclared:
		delete(caps, "logging")
	case mutant.SubscribeUndeclaredServed:
		caps["resources"] = map[string]any{}
	}
	if modern {
		maps.Copy(caps, listenCapabilities)
		if s.opts.Tasks {
			caps["extensions"] = map[string]any{TasksExtension: map[string]any{}}
		}
	}
	return caps
}

// notification acts on a client notification and answers nothing (JR-14):
// notifications/initialized readies the session (LC-05), notifications/cancelled
// cancels a request (CX-04); others are ignored.
func (s *Server) notification(sess *serverSession, n *jsonrpc.Message) *jsonrpc.Message {
	switch n.Method {
	case "notifications/initialized":
		sess.mu.Lock()
		if sess.stage == initialized {
			sess.stage = ready
		}
		sess.mu.Unlock()
	case "notifications/cancelled":
		if !sess.cancel(n.Params) && s.opts.Mutant == mutant.UnknownCancelAnswered {
			return jsonrpc.NewError(jsonrpc.ID{}, jsonrpc.CodeInvalidParams, "no request in flight has that requestId")
		}
	case "notifications/roots/list_changed", "notifications/progress", "notifications/message":
	default:
		if s.opts.Mutant == mutant.AnswersNotifications {
			return jsonrpc.NewError(jsonrpc.ID{}, jsonrpc.CodeMethodNotFound, fmt.Sprintf("method %q is not offered by this server", n.Method))
		}
	}
	return nil
}
