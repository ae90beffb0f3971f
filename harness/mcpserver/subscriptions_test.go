package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// subscriptions lists the resource URIs a peer's session is subscribed to.
func (p *peer) subscriptions() []string {
	sess := p.srv.session(p.ctx, p.session)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return slices.Sorted(maps.Keys(sess.subscribed))
}

func TestSubscriptionsArePerSession(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	other := &peer{t: t, srv: p.srv, ctx: context.Background(), sent: make(chan *jsonrpc.Message, 16), session: namedSession("other")}
	other.initialize("{}")
	for _, uri := range []string{"test://static-text", "test://template/7/data", "test://static-text"} {
		if got := string(p.call("resources/subscribe", `{"uri":"`+uri+`"}`).Result); got != "{}" {
			t.Fatalf("resources/subscribe %s: %s, want {}", uri, got)
		}
	}
	wantServerResult(t, other.call("resources/subscribe", `{"uri":"test://static-binary"}`))
	if got := p.subscriptions(); !slices.Equal(got, []string{"test://static-text", "test://template/7/data"}) {
		t.Fatalf("subscribed to %v", got)
	}
	// Unsubscribing twice, or from a resource never subscribed to, succeeds.
	for _, uri := range []string{"test://static-text", "test://static-text", "test://watched-resource"} {
		if got := string(p.call("resources/unsubscribe", `{"uri":"`+uri+`"}`).Result); got != "{}" {
			t.Fatalf("resources/unsubscribe %s: %s, want {}", uri, got)
		}
	}
	if got := p.subscriptions(); !slices.Equal(got, []string{"test://template/7/data"}) {
		t.Fatalf("after unsubscribing, subscribed to %v", got)
	}
	if got := other.subscriptions(); !slices.Equal(got, []string{"test://static-binary"}) {
		t.Fatalf("the other session is subscribed to %v", got)
	}
	// The resources never change: no notifications/resources/updated.
	if sent := append(p.drain(), other.drain()...); len(ofMethod(sent, "notifications/resources/updated")) > 0 {
		t.Fatalf("sent %v", methods(sent))
	}
}

func TestSubscribeNeedsAKnownURI(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		for _, params := range []string{"", `{}`, `{"uri":""}`, `{"uri":5}`, `["test://static-text"]`} {
			wantServerError(t, p.call(method, params), jsonrpc.CodeInvalidParams)
		}
		for _, uri := range []string{"test://nothing", "test://template//data"} {
			resp := p.call(method, `{"uri":"`+uri+`"}`)
			wantServerError(t, resp, jsonrpc.CodeResourceNotFound)
			var data struct {
				URI string `json:"uri"`
			}
			if json.Unmarshal(resp.Error.Data, &data) != nil || data.URI != uri {
				t.Errorf("%s %s: error data %s, want {\"uri\":%q}", method, uri, resp.Error.Data, uri)
			}
		}
	}
	if got := p.subscriptions(); len(got) > 0 {
		t.Fatalf("refused requests subscribed to %v", got)
	}
}

func TestSubscribeIsALegacyMethod(t *testing.T) {
	p := newPeer(t, "")
	wantServerResult(t, p.call("initialize", initParams("2025-11-25", "{}")), `"resources":{"subscribe":true}`)
	// The modern era replaced resources/subscribe with subscriptions/listen,
	// whose resourceSubscriptions the subscribe capability declares.
	p = newPeer(t, "")
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		wantServerError(t, p.call(method, modernParams(mcp.ModernVersion, `"uri":"test://static-text"`)), jsonrpc.CodeMethodNotFound)
	}
}

func TestSubscriptionsAreBounded(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for i := range maxSubscriptions {
		wantServerResult(t, p.call("resources/subscribe", fmt.Sprintf(`{"uri":"test://template/%d/data"}`, i)))
	}
	wantServerError(t, p.call("resources/subscribe", `{"uri":"test://template/one-more/data"}`), jsonrpc.CodeInternalError)
	// Subscribing again to one already held, or after an unsubscribe, is fine.
	wantServerResult(t, p.call("resources/subscribe", `{"uri":"test://template/0/data"}`))
	wantServerResult(t, p.call("resources/unsubscribe", `{"uri":"test://template/0/data"}`))
	wantServerResult(t, p.call("resources/subscribe", `{"uri":"test://template/one-more/data"}`))
}
