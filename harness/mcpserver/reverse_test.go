package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// allCapabilities declares sampling, both elicitation modes and roots.
const allCapabilities = `{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true}}`

// fixedReplies answers each client-feature request the way a cooperative
// client does.
func fixedReplies(t *testing.T) func(req *jsonrpc.Message) *jsonrpc.Message {
	return func(req *jsonrpc.Message) *jsonrpc.Message {
		var result any
		switch req.Method {
		case "sampling/createMessage":
			result = map[string]any{"role": "assistant", "content": map[string]string{"type": "text", "text": "forty-two"}, "model": "m", "stopReason": "endTurn"}
		case "elicitation/create":
			if paramsOf(t, req)["mode"] == "url" {
				result = map[string]any{"action": "accept"}
			} else {
				result = map[string]any{"action": "accept", "content": map[string]string{"username": "ada", "email": "ada@example.com"}}
			}
		case "roots/list":
			result = map[string]any{"roots": []map[string]string{{"uri": "file:///work", "name": "work"}, {"uri": "file:///tmp"}}}
		default:
			return jsonrpc.NewError(req.ID, jsonrpc.CodeMethodNotFound, "no")
		}
		resp, _ := jsonrpc.NewResult(req.ID, result)
		return resp
	}
}

// elicitAction answers every request with an elicitation result holding
// only action.
func elicitAction(action string) func(req *jsonrpc.Message) *jsonrpc.Message {
	return func(req *jsonrpc.Message) *jsonrpc.Message {
		r, _ := jsonrpc.NewResult(req.ID, map[string]string{"action": action})
		return r
	}
}

// replyError answers every request with a JSON-RPC error.
func replyError(code int64) func(req *jsonrpc.Message) *jsonrpc.Message {
	return func(req *jsonrpc.Message) *jsonrpc.Message { return jsonrpc.NewError(req.ID, code, "refused") }
}

func TestClientFeaturesRoundTrip(t *testing.T) {
	p := newPeer(t, "").answering(fixedReplies(t))
	p.initialize(allCapabilities)
	for _, c := range []struct{ tool, args, request, want string }{
		{"test_sampling", `{"prompt":"the answer?"}`, "sampling/createMessage", "LLM response: forty-two"},
		{"test_elicitation", `{"message":"who?"}`, "elicitation/create", `User response: action=accept, content={"email":"ada@example.com","username":"ada"}`},
		{"elicit_url", `{}`, "elicitation/create", "User response: action=accept"},
		{"roots", `{}`, "roots/list", "2 roots: file:///work (work), file:///tmp"},
	} {
		r := toolResultOf(t, p.tool(c.tool, c.args))
		if r.IsError || textOf(r) != c.want {
			t.Errorf("%s: %q (isError %v), want %q", c.tool, textOf(r), r.IsError, c.want)
		}
		sent := p.drain()
		if got := methods(sent); !slices.Equal(got, []string{c.request, "response"}) {
			t.Errorf("%s sent %v", c.tool, got)
		}
		if c.tool == "test_sampling" {
			par := paramsOf(t, sent[0])
			if par["maxTokens"] != 100.0 || !strings.Contains(string(sent[0].Params), `"text":"the answer?"`) {
				t.Errorf("sampling params %s", sent[0].Params)
			}
		}
		if c.tool == "elicit_url" {
			par := paramsOf(t, sent[0])
			if par["mode"] != "url" || par["url"] != defaultElicitURL || par["elicitationId"] == "" {
				t.Errorf("URL elicitation params %s", sent[0].Params)
			}
		}
	}
}

func TestClientFeaturesNeedTheirCapability(t *testing.T) {
	for caps, tools := range map[string][]string{
		`{}`:                              {"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "elicit_url", "roots"},
		`{"sampling":{},"roots":{}}`:      {"test_elicitation", "elicit_url"},
		`{"elicitation":{}}`:              {"test_sampling", "elicit_url", "roots"},
		`{"elicitation":{"url":{}}}`:      {"test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"},
		`{"elicitation":{"form":{}}}`:     {"elicit_url"},
		`{"sampling":true,"roots":"yes"}`: {"test_sampling", "roots"},
	} {
		p := newPeer(t, "").answering(fixedReplies(t))
		p.initialize(caps)
		for _, tool := range tools {
			wantIsError(t, p.tool(tool, `{"prompt":"x","message":"y"}`), "did not declare")
			if sent := p.drain(); len(sent) != 1 {
				t.Errorf("capabilities %s: %s sent %v, want its response only", caps, tool, methods(sent))
			}
		}
	}
}

func TestNoRequestsBeforeInitializedNotification(t *testing.T) {
	p := newPeer(t, "").answering(fixedReplies(t))
	wantServerResult(t, p.call("initialize", initParams("2025-11-25", allCapabilities)))
	wantIsError(t, p.tool("roots", ""), "notifications/initialized")
	if sent := p.drain(); len(ofMethod(sent, "roots/list")) > 0 {
		t.Fatal("roots/list sent before notifications/initialized")
	}
	p.notify("notifications/initialized", "")
	wantServerResult(t, p.tool("roots", ""), "file:///work")
}

func TestClientFailuresReachTheHandler(t *testing.T) {
	p := newPeer(t, "").answering(replyError(-1))
	p.initialize(allCapabilities)
	wantIsError(t, p.tool("test_sampling", `{"prompt":"x"}`), "json-rpc error -1")
	wantIsError(t, p.tool("roots", ""), "json-rpc error -1")
	wantIsError(t, p.tool("test_elicitation", `{"message":"m"}`), "json-rpc error -1")
	wantIsError(t, p.tool("elicit_url", ""), "json-rpc error -1")
	for action, want := range map[string]string{"decline": "action=decline", "cancel": "action=cancel"} {
		p.answering(elicitAction(action))
		for _, tool := range []string{"test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "elicit_url"} {
			r := toolResultOf(t, p.tool(tool, `{"message":"m"}`))
			if r.IsError || !strings.Contains(textOf(r), want) {
				t.Errorf("%s %s: %q", tool, action, textOf(r))
			}
		}
	}
	p.answering(elicitAction("shrug"))
	wantIsError(t, p.tool("test_elicitation", `{"message":"m"}`), "shrug")
	// The session is still healthy.
	wantServerResult(t, p.call("ping", ""), "{}")
}

func TestElicitReturnsDeclineAsAnError(t *testing.T) {
	p := newPeer(t, "").answering(elicitAction("decline"))
	p.initialize(allCapabilities)
	sess := p.srv.session(p.ctx, p.session)
	var returned bool
	rc, _ := sess.begin(p.ctx, p.srv, msg(jsonrpc.IntID(50), "tools/call", ""), p.outFor(&returned, &sync.Mutex{}))
	defer sess.finish(rc)
	res, err := rc.Elicit(ElicitParams{Message: "m", RequestedSchema: json.RawMessage(`{"type":"object"}`)})
	if err != ErrDeclined || res == nil || res.Action != "decline" {
		t.Fatalf("Elicit: %+v, %v; want the result and ErrDeclined", res, err)
	}
}

func TestReverseRequestsTimeOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeerWith(t, Options{ReverseTimeout: 5 * time.Second})
		p.initialize(allCapabilities)
		start := time.Now()
		wantIsError(t, p.tool("test_sampling", `{"prompt":"x"}`), "did not reply in time")
		if took := time.Since(start); took != 5*time.Second {
			t.Fatalf("the sampling request gave up after %v, want the 5s timeout", took)
		}
		sent := p.drain()
		if got := methods(sent); !slices.Equal(got, []string{"sampling/createMessage", "notifications/cancelled", "response"}) {
			t.Fatalf("sent %v, want the request, its cancellation, the response", got)
		}
		if got := paramsOf(t, sent[1])["requestId"]; got != 1.0 {
			t.Fatalf("cancelled requestId %v, want the sampling request's id 1", got)
		}
		// A reply that comes after the timeout is dropped.
		if p.srv.Deliver(p.session, &jsonrpc.Message{ID: sent[0].ID, Result: json.RawMessage(`{}`)}) {
			t.Fatal("a late reply was delivered")
		}
	})
}

func TestCancelEndsAReverseWait(t *testing.T) {
	p := newPeer(t, "")
	p.initialize(allCapabilities)
	done := p.start(jsonrpc.IntID(21), "tools/call", `{"name":"roots"}`)
	if m := p.next(); m.Method != "roots/list" {
		t.Fatalf("sent %s, want roots/list", m.Method)
	}
	p.notify("notifications/cancelled", `{"requestId":21}`)
	if resp := <-done; resp != nil {
		t.Fatalf("cancelled request answered: %+v", resp)
	}
	if m := p.next(); m.Method != "notifications/cancelled" {
		t.Fatalf("sent %s, want the roots/list request cancelled", m.Method)
	}
}

// formOf decodes the requestedSchema of an elicitation/create request.
func formOf(t *testing.T, req *jsonrpc.Message) map[string]map[string]any {
	t.Helper()
	var p struct {
		RequestedSchema struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || req.Method != "elicitation/create" || p.RequestedSchema.Type != "object" {
		t.Fatalf("%s %s (%v), want elicitation/create with an object form", req.Method, req.Params, err)
	}
	return p.RequestedSchema.Properties
}

func TestElicitationDefaultsFormHasADefaultOfEachType(t *testing.T) {
	p := newPeer(t, "").answering(elicitAction("accept"))
	p.initialize(allCapabilities)
	r := toolResultOf(t, p.tool("test_elicitation_sep1034_defaults", ""))
	if r.IsError || textOf(r) != "User response: action=accept, content={}" {
		t.Fatalf("result %q (isError %v)", textOf(r), r.IsError)
	}
	form := formOf(t, p.drain()[0])
	seen := map[string]bool{}
	for name, field := range form {
		def, ok := field["default"]
		if !ok {
			t.Errorf("field %s has no default: %v", name, field)
			continue
		}
		kind, _ := field["type"].(string)
		if options, isEnum := field["enum"].([]any); isEnum {
			kind = "enum"
			if !slices.Contains(options, def) {
				t.Errorf("enum field %s: default %v is not one of %v", name, def, field["enum"])
			}
		}
		seen[kind] = true
		if n, _ := def.(float64); kind == "integer" && n != float64(int64(n)) {
			t.Errorf("integer field %s has default %v", name, def)
		}
	}
	for _, kind := range []string{"string", "integer", "number", "enum", "boolean"} {
		if !seen[kind] {
			t.Errorf("no %s field with a default in %v", kind, form)
		}
	}
}

func TestElicitationEnumsFormHasEachEnumShape(t *testing.T) {
	p := newPeer(t, "").answering(fixedReplies(t))
	p.initialize(allCapabilities)
	wantServerResult(t, p.tool("test_elicitation_sep1330_enums", ""), "action=accept")
	form := formOf(t, p.drain()[0])
	titled := func(options any) bool {
		list, _ := options.([]any)
		for _, o := range list {
			if opt, _ := o.(map[string]any); opt["const"] == nil || opt["title"] == nil {
				return false
			}
		}
		return len(list) > 0
	}
	shapes := map[string]func(field, items map[string]any) bool{
		"untitled single": func(f, _ map[string]any) bool {
			return f["type"] == "string" && f["enum"] != nil && f["enumNames"] == nil
		},
		"titled single": func(f, _ map[string]any) bool { return f["type"] == "string" && titled(f["oneOf"]) },
		"legacy titled": func(f, _ map[string]any) bool {
			return f["type"] == "string" && f["enum"] != nil && f["enumNames"] != nil
		},
		"untitled multi": func(f, i map[string]any) bool { return f["type"] == "array" && i["enum"] != nil },
		"titled multi":   func(f, i map[string]any) bool { return f["type"] == "array" && titled(i["anyOf"]) },
	}
	for shape, fits := range shapes {
		found := false
		for _, field := range form {
			items, _ := field["items"].(map[string]any)
			found = found || fits(field, items)
		}
		if !found {
			t.Errorf("no %s enum field in %v", shape, form)
		}
	}
}
