package wireschema

import (
	"fmt"
	"strings"
)

// targets say which definition each message shape of one schema must
// match. They are read from the schema itself, since the names differ
// across versions: a request or notification definition is one whose
// method is a const (CallToolRequest: "tools/call"); the result of
// FooRequest is FooResultResponse when the schema defines that whole
// response (2026-07-28), else FooResult, else EmptyResult; an error
// response whose code a whole error response definition fixes
// (2026-07-28's UnsupportedProtocolVersionError: -32022) must match that.
type targets struct {
	requests      map[string]string // method → request definition
	notifications map[string]string // method → notification definition
	results       map[string]string // method → result definition
	errors        map[string]string // error code (JSON text) → error response definition
	// generic definitions of each message shape: the envelope a specific
	// definition is checked inside, and what an unknown method must match.
	request, notification, result, errorResponse, message string
}

// unions are definitions that gather others (ClientNotification may be a
// single notification inlined); they are never a method's own definition.
var unions = map[string]bool{"ClientRequest": true, "ServerRequest": true, "ClientNotification": true, "ServerNotification": true}

func findTargets(defs map[string]any) targets {
	t := targets{
		requests:      map[string]string{},
		notifications: map[string]string{},
		results:       map[string]string{},
		errors:        map[string]string{},
		request:       "JSONRPCRequest",
		notification:  "JSONRPCNotification",
		result:        firstDefined(defs, "JSONRPCResultResponse", "JSONRPCResponse"),
		errorResponse: firstDefined(defs, "JSONRPCErrorResponse", "JSONRPCError"),
		message:       "JSONRPCMessage",
	}
	for name, d := range defs {
		method := methodConst(d)
		if code := errorCodeConst(d); code != "" {
			t.errors[code] = name
		}
		switch {
		case method == "" || unions[name]:
		case strings.HasSuffix(name, "Request"):
			t.requests[method] = name
			base := strings.TrimSuffix(name, "Request")
			t.results[method] = firstDefined(defs, base+"ResultResponse", base+"Result", "EmptyResult", "Result")
		case strings.HasSuffix(name, "Notification"):
			t.notifications[method] = name
		}
	}
	return t
}

// methodConst is the const of a definition's method property, if any.
func methodConst(def any) string {
	d, _ := def.(map[string]any)
	props, _ := d["properties"].(map[string]any)
	m, _ := props["method"].(map[string]any)
	c, _ := m["const"].(string)
	return c
}

// errorCodeConst is the const error code of a whole error response
// definition: its error member is all of Error and an object whose code is
// a const.
func errorCodeConst(def any) string {
	d, _ := def.(map[string]any)
	props, _ := d["properties"].(map[string]any)
	e, _ := props["error"].(map[string]any)
	all, _ := e["allOf"].([]any)
	for _, part := range all {
		p, _ := part.(map[string]any)
		pp, _ := p["properties"].(map[string]any)
		code, _ := pp["code"].(map[string]any)
		if c, ok := code["const"]; ok {
			return fmt.Sprint(c)
		}
	}
	return ""
}

func firstDefined(defs map[string]any, names ...string) string {
	for _, n := range names {
		if _, ok := defs[n]; ok {
			return n
		}
	}
	return ""
}

// wholeResponse reports whether a result definition is a whole response
// (2026-07-28's FooResultResponse) rather than the result member's value.
func wholeResponse(def string) bool { return strings.HasSuffix(def, "Response") }

// wrapperKey names the schema that checks def inside the envelope of kind.
func wrapperKey(kind Kind, def string) string { return string(kind) + "/" + def }

// wrappers are the schemas of a specific definition inside its envelope,
// by wrapperKey: a request must match JSONRPCRequest and CallToolRequest
// (in 2025-03-26 and 2025-06-18 the latter has no jsonrpc or id); a result
// the result response with its result member matching ListToolsResult.
// draft is the document's $schema, refs the prefix of its definitions.
func (t targets) wrappers(draft any, refs string) map[string]map[string]any {
	ref := func(def string) map[string]any { return map[string]any{"$ref": refs + def} }
	both := func(a, b map[string]any) map[string]any {
		return map[string]any{"$schema": draft, "allOf": []any{a, b}}
	}
	out := map[string]map[string]any{}
	for _, def := range t.requests {
		out[wrapperKey(KindRequest, def)] = both(ref(t.request), ref(def))
	}
	for _, def := range t.notifications {
		out[wrapperKey(KindNotification, def)] = both(ref(t.notification), ref(def))
	}
	for _, def := range t.results {
		if !wholeResponse(def) {
			result := map[string]any{"properties": map[string]any{"result": ref(def)}}
			out[wrapperKey(KindResult, def)] = both(ref(t.result), result)
		}
	}
	return out
}
