package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// testSession is the session a transport would hand the server.
type testSession struct{}

func (testSession) ID() string              { return "s" }
func (testSession) ProtocolVersion() string { return "2025-11-25" }

// serverCall sends one request to a minimal server and returns the response
// and what the server sent through out.
func serverCall(t *testing.T, method, params string) (*jsonrpc.Message, []*jsonrpc.Message) {
	t.Helper()
	req := &jsonrpc.Message{ID: jsonrpc.IntID(1), Method: method}
	if params != "" {
		req.Params = json.RawMessage(params)
	}
	var sent []*jsonrpc.Message
	out := func(m *jsonrpc.Message) error {
		sent = append(sent, m)
		return nil
	}
	resp := NewMinimalServer().Handle(context.Background(), testSession{}, req, out)
	if resp == nil || resp.ID != req.ID {
		t.Fatalf("%s: response %+v does not answer id 1", method, resp)
	}
	return resp, sent
}

func wantServerResult(t *testing.T, resp *jsonrpc.Message, contains ...string) {
	t.Helper()
	if resp.Kind() != jsonrpc.KindResult {
		t.Fatalf("got error %+v, want a result", resp.Error)
	}
	for _, s := range contains {
		if !strings.Contains(string(resp.Result), s) {
			t.Errorf("result %s lacks %s", resp.Result, s)
		}
	}
}

func wantServerError(t *testing.T, resp *jsonrpc.Message, code int64) {
	t.Helper()
	if resp.Kind() != jsonrpc.KindError || resp.Error.Code != code {
		t.Fatalf("got %s %+v, want error %d", resp.Kind(), resp.Error, code)
	}
}

func TestMinimalServerNegotiatesTheVersion(t *testing.T) {
	for proposed, want := range map[string]string{
		"2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2024-11-05": "2025-11-25", "2026-07-28": "2025-11-25",
	} {
		resp, _ := serverCall(t, "initialize", `{"protocolVersion":"`+proposed+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
		wantServerResult(t, resp, `"protocolVersion":"`+want+`"`, `"tools":{}`, `"logging":{}`,
			`"serverInfo":{"name":"mcpconform-reference","version":"dev"}`)
	}
	for _, params := range []string{"", `{"protocolVersion":7}`, `{}`, `[1]`} {
		resp, _ := serverCall(t, "initialize", params)
		wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	}
}

func TestMinimalServerPingAndTools(t *testing.T) {
	resp, _ := serverCall(t, "ping", "")
	wantServerResult(t, resp, `{}`)
	resp, _ = serverCall(t, "tools/list", "")
	wantServerResult(t, resp, `"name":"echo"`, `"name":"notify"`, `"inputSchema":{"type":"object"`)
	resp, _ = serverCall(t, "tools/call", `{"name":"echo","arguments":{"text":"hello"}}`)
	wantServerResult(t, resp, `"text":"hello"`)
	resp, _ = serverCall(t, "tools/call", `{"name":"echo"}`)
	wantServerResult(t, resp, `"text":"ok"`)
	resp, _ = serverCall(t, "tools/call", `{"name":"echo","arguments":{"text":5}}`)
	wantServerResult(t, resp, `"isError":true`)
}

func TestMinimalServerNotifyLogsBeforeItsResult(t *testing.T) {
	resp, sent := serverCall(t, "tools/call", `{"name":"notify","arguments":{}}`)
	wantServerResult(t, resp, `"text":"ok"`)
	if len(sent) != 1 || sent[0].Method != "notifications/message" || !strings.Contains(string(sent[0].Params), `"level":"info"`) {
		t.Fatalf("notify sent %v, want one info notifications/message", sent)
	}
}

func TestMinimalServerNotifyWithoutAStreamStillAnswers(t *testing.T) {
	req := &jsonrpc.Message{ID: jsonrpc.IntID(1), Method: "tools/call", Params: json.RawMessage(`{"name":"notify"}`)}
	resp := NewMinimalServer().Handle(context.Background(), testSession{}, req, func(*jsonrpc.Message) error { return errors.New("no stream") })
	wantServerResult(t, resp, `"text":"ok"`)
}

func TestMinimalServerErrors(t *testing.T) {
	resp, _ := serverCall(t, "resources/list", "")
	wantServerError(t, resp, jsonrpc.CodeMethodNotFound)
	resp, _ = serverCall(t, "tools/call", `{"name":"missing"}`)
	wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	resp, _ = serverCall(t, "tools/call", `{}`)
	wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	resp, _ = serverCall(t, "logging/setLevel", `{"level":"loud"}`)
	wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	resp, _ = serverCall(t, "logging/setLevel", `{"level":"warning"}`)
	wantServerResult(t, resp, `{}`)
}

func TestMinimalServerAnswersNoNotificationOrResponse(t *testing.T) {
	s := NewMinimalServer()
	for _, m := range []*jsonrpc.Message{
		{Method: "notifications/initialized"},
		{Method: "ping"},
		{ID: jsonrpc.IntID(4), Result: json.RawMessage(`{}`)},
		jsonrpc.NewError(jsonrpc.IntID(5), -1, "declined"),
	} {
		if resp := s.Handle(context.Background(), testSession{}, m, nil); resp != nil {
			t.Errorf("answered %s %s with %+v", m.Kind(), m.Method, resp)
		}
	}
}
