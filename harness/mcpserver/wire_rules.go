package mcpserver

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// metaKeyOf is the _meta key each mutant of a _meta key rule puts on the
// tools/list result, with its value (JR-42 … JR-45, JR-50).
var metaKeyOf = map[mutant.Name][2]string{
	mutant.MetaPrefixInvalid:        {"mcpconform..dev/note", "x"},
	mutant.MetaNameInvalid:          {"dev.mcpconform/-note", "x"},
	mutant.MetaPrefixReserved0618:   {"modelcontextprotocol.io/mcpconform-note", "x"},
	mutant.MetaPrefixReserved:       {"io.modelcontextprotocol/mcpconform-note", "x"},
	mutant.ResultTraceparentInvalid: {"traceparent", "mcpconform-trace"},
}

// unknownMethodCodeOf is the code each mutant of an error code rule
// answers a 2026-07-28 request for an unknown method with (JR-28, JR-29,
// JR-31).
var unknownMethodCodeOf = map[mutant.Name]int64{
	mutant.ErrorCodeSpecRange:     -32050,
	mutant.ErrorCodeLegacyRange:   -32010,
	mutant.ErrorCodeReservedRange: -32500,
}

// mutateResponse is where the mutants of the rules about what a message
// carries beyond its schema change the response the reference built for
// req; the reference's is returned as it is.
func (s *Server) mutateResponse(req, resp *jsonrpc.Message) *jsonrpc.Message {
	m := s.opts.Mutant
	_, modern := mcp.ModernRequest(req)
	switch {
	case resp.Error != nil && resp.Error.Code == jsonrpc.CodeMethodNotFound:
		e := *resp.Error
		switch code, ok := unknownMethodCodeOf[m]; {
		case ok && modern:
			e.Code = code
		case m == mutant.ErrorMessageMultiline:
			e.Message += "\n    at mcpserver.request (server.go:241)"
		case m == mutant.URLElicitationMisused && !modern:
			e.Code, e.Data = jsonrpc.CodeURLElicitationRequired, nil
		}
		resp.Error = &e
	case resp.Error != nil:
	case req.Method == "tools/list" && metaKeyOf[m] != [2]string{}:
		kv := metaKeyOf[m]
		resp.Result = withField(resp.Result, []string{"_meta", kv[0]}, kv[1])
	case req.Method == mcp.MethodDiscover && m == mutant.ExtensionUnprefixed:
		resp.Result = withField(resp.Result, []string{"capabilities", "extensions", "mcpconform-extension"}, map[string]any{})
	}
	return resp
}

// withField returns the JSON object result with value set at path, the
// objects on the way made when missing; result is returned as it is when
// it is no object.
func withField(result json.RawMessage, path []string, value any) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(result, &fields) != nil || fields == nil {
		return result
	}
	var inner json.RawMessage
	if len(path) > 1 {
		inner = withField(orEmpty(fields[path[0]]), path[1:], value)
	} else {
		inner, _ = json.Marshal(value)
	}
	fields[path[0]] = inner
	out, err := json.Marshal(fields)
	if err != nil {
		return result
	}
	return out
}

// orEmpty is raw, or the empty object when raw is absent.
func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// askEarly is mutant RequestsBeforeInitDone's request: roots/list, sent
// while a ping that came before notifications/initialized is answered,
// and not waited for (LC-07).
func (rc *RequestContext) askEarly() {
	id, _ := rc.sess.expect()
	defer rc.sess.forget(id)
	if req, err := jsonrpc.NewRequest(id, "roots/list", nil); err == nil {
		_ = rc.send(req)
	}
}
