package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// listenParams are subscriptions/listen params opting into filter (a JSON
// object text).
func listenParams(filter string) string {
	return modernParams(mcp.ModernVersion, `"notifications":`+filter)
}

// startListen opens a listen stream as request id and returns the
// acknowledgement and the channel of its response.
func startListen(t *testing.T, p *peer, id jsonrpc.ID, filter string) (*jsonrpc.Message, <-chan *jsonrpc.Message) {
	t.Helper()
	done := p.start(id, mcp.MethodListen, listenParams(filter))
	return p.await(func(m *jsonrpc.Message) bool { return m.Method == mcp.NotificationAcknowledged }), done
}

// await returns the next message match accepts, dropping others.
func (p *peer) await(match func(*jsonrpc.Message) bool) *jsonrpc.Message {
	p.t.Helper()
	deadline := time.After(serverWait)
	for {
		select {
		case m := <-p.sent:
			if match(m) {
				return m
			}
		case <-deadline:
			p.t.Fatalf("no awaited message within %v", serverWait)
			return nil
		}
	}
}

// subscriptionOf is the _meta subscriptionId of a notification, "" without.
func subscriptionOf(m *jsonrpc.Message) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return string(p.Meta[mcp.MetaSubscriptionID])
}

// trigger calls a trigger tool in the modern era.
func (p *peer) trigger(tool, args string) {
	p.t.Helper()
	wantServerResult(p.t, p.call("tools/call", modernParams(mcp.ModernVersion, fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args))))
}

func TestListenAcknowledgesWhatItHonours(t *testing.T) {
	p := newPeer(t, "")
	ack, _ := startListen(t, p, jsonrpc.StringID("listen-1"),
		`{"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://watched-resource","test://nothing"]}`)
	var params struct {
		Notifications mcp.SubscriptionFilter `json:"notifications"`
	}
	if err := json.Unmarshal(ack.Params, &params); err != nil {
		t.Fatal(err)
	}
	want := mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"}}
	if got := params.Notifications; got.ToolsListChanged != want.ToolsListChanged || got.PromptsListChanged || got.ResourcesListChanged ||
		!slices.Equal(got.ResourceSubscriptions, want.ResourceSubscriptions) {
		t.Errorf("acknowledged %s, want %+v", ack.Params, want)
	}
	if got := subscriptionOf(ack); got != `"listen-1"` {
		t.Errorf("acknowledgement's subscriptionId %s, want \"listen-1\"", got)
	}
}

func TestListenSendsOnlyWhatWasAskedTagged(t *testing.T) {
	p := newPeer(t, "")
	startListen(t, p, jsonrpc.IntID(40), `{"promptsListChanged":true,"resourceSubscriptions":["test://static-text"]}`)
	p.trigger("test_trigger_tool_change", "{}")
	p.trigger("test_trigger_resource_update", `{"uri":"test://watched-resource"}`)
	p.trigger("test_trigger_resource_update", `{"uri":"test://static-text"}`)
	p.trigger("test_trigger_prompt_change", "{}")
	var got []string
	for len(got) < 2 {
		m := p.await(func(m *jsonrpc.Message) bool { return m.Kind() == jsonrpc.KindNotification })
		if subscriptionOf(m) != "40" {
			t.Fatalf("%s %s lacks subscriptionId 40", m.Method, m.Params)
		}
		got = append(got, m.Method)
	}
	if want := []string{mcp.NotificationResourceUpdated, mcp.NotificationPromptsListChanged}; !slices.Equal(got, want) {
		t.Errorf("the stream carried %v, want %v", got, want)
	}
	if sent := ofMethod(p.drain(), mcp.NotificationToolsListChanged); len(sent) > 0 {
		t.Errorf("a stream that did not opt into tool list changes got %v", methods(sent))
	}
}

func TestListenCancelledGetsNoResponse(t *testing.T) {
	p := newPeer(t, "")
	_, done := startListen(t, p, jsonrpc.IntID(41), `{"toolsListChanged":true}`)
	p.notify("notifications/cancelled", `{"requestId":41}`)
	if resp := <-done; resp != nil {
		t.Fatalf("the cancelled listen stream was answered: %+v", resp)
	}
	p.trigger("test_trigger_tool_change", "{}")
	if sent := ofMethod(p.drain(), mcp.NotificationToolsListChanged); len(sent) > 0 {
		t.Errorf("a cancelled stream still got %v", methods(sent))
	}
}

func TestListenEndsWithResultWhenTheServerStops(t *testing.T) {
	p := newPeer(t, "")
	ctx, stop := context.WithCancel(context.Background())
	p.ctx = ctx
	_, done := startListen(t, p, jsonrpc.IntID(42), `{}`)
	stop()
	resp := <-done
	if resp == nil {
		t.Fatal("the listen stream the server ended got no result")
	}
	wantServerResult(t, resp, `"resultType":"complete"`, fmt.Sprintf(`%q:42`, mcp.MetaSubscriptionID))
}

func TestListenIsModernAndNeedsAFilter(t *testing.T) {
	p := newPeer(t, "")
	for _, params := range []string{modernParams(mcp.ModernVersion, ""), listenParams(`[]`), listenParams(`{"toolsListChanged":"yes"}`)} {
		wantServerError(t, p.call(mcp.MethodListen, params), jsonrpc.CodeInvalidParams)
	}
	p.initialize("{}")
	wantServerError(t, p.call(mcp.MethodListen, `{"notifications":{}}`), jsonrpc.CodeMethodNotFound)
}

func TestModernRequestCancelledOverStdioGetsNoResponse(t *testing.T) {
	p := newPeer(t, "")
	done := p.start(jsonrpc.IntID(43), "tools/call", modernParams(mcp.ModernVersion, `"name":"slow","arguments":{"ms":600000}`))
	// The cancel may overtake the request: it is remembered either way.
	p.notify("notifications/cancelled", `{"requestId":43}`)
	if resp := <-done; resp != nil {
		t.Fatalf("the cancelled request was answered: %+v", resp)
	}
	if sent := ofMethod(p.drain(), "notifications/cancelled"); len(sent) > 0 {
		t.Errorf("the server sent %v", methods(sent))
	}
}

func TestModernRequestCancelledByClosingItsHTTPStream(t *testing.T) {
	p := newPeer(t, "")
	ctx, closeStream := context.WithCancel(context.Background())
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	p.ctx = WithHTTPRequest(context.Background(), r)
	done := p.start(jsonrpc.IntID(44), "tools/call", modernParams(mcp.ModernVersion, `"name":"slow","arguments":{"ms":600000}`))
	closeStream()
	if resp := <-done; resp != nil {
		t.Fatalf("the request whose stream closed was answered: %+v", resp)
	}
}

// callWithHeaders calls test_custom_headers with args over an HTTP request
// bearing the Mcp-Param headers given (name, value pairs).
func callWithHeaders(p *peer, args string, headers ...string) *jsonrpc.Message {
	p.t.Helper()
	r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	if err != nil {
		p.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	p.ctx = WithHTTPRequest(context.Background(), r)
	defer func() { p.ctx = context.Background() }()
	return p.call("tools/call", modernParams(mcp.ModernVersion, `"name":"test_custom_headers","arguments":`+args))
}

func TestParamHeadersMirrorTheArguments(t *testing.T) {
	p := newPeer(t, "")
	for _, tc := range []struct {
		args    string
		headers []string
	}{
		{`{}`, nil},
		{`{"region":"us-west1","priority":42,"verbose":true}`, []string{"Mcp-Param-Region", "us-west1", "mcp-param-priority", "42.0", "Mcp-Param-Verbose", "true"}},
		{`{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8=?="}},
		{`{"region":"SGVsbG8="}`, []string{"Mcp-Param-Region", "SGVsbG8="}},
		{`{"region":"=?base64?SGVsbG8="}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8="}},
		{`{"region":null}`, []string{"Mcp-Param-Other", "x"}},
	} {
		wantServerResult(t, callWithHeaders(p, tc.args, tc.headers...))
	}
	for _, tc := range []struct {
		args    string
		headers []string
	}{
		{`{"region":"us-west1"}`, nil},
		{`{"region":"us-west1"}`, []string{"Mcp-Param-Region", "us-east1"}},
		{`{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8?="}},
		{`{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="}},
		{`{"region":"héllo"}`, []string{"Mcp-Param-Region", "héllo"}},
		{`{"priority":42}`, []string{"Mcp-Param-Priority", "43"}},
		{`{"verbose":false}`, []string{"Mcp-Param-Verbose", "0"}},
		{`{}`, []string{"Mcp-Param-Region", "us-west1"}},
		{`{"region":"a"}`, []string{"Mcp-Param-Region", "a", "Mcp-Param-Region", "a"}},
	} {
		resp := callWithHeaders(p, tc.args, tc.headers...)
		if resp.Error == nil || resp.Error.Code != jsonrpc.CodeHeaderMismatch {
			t.Errorf("arguments %s with headers %v: got %s, want -32020", tc.args, tc.headers, resp.Result)
		}
	}
}
