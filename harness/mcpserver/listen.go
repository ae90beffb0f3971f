package mcpserver

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// listenCapabilities are what the modern era declares beside
// serverCapabilities: the notifications a subscriptions/listen stream may
// carry. The tool and prompt lists announce changes (the trigger tools
// announce one; the lists themselves stay the same), and resource updates
// reach the streams subscribed to the resource; the resource list never
// changes, so resources declare no listChanged.
var listenCapabilities = map[string]any{
	"tools":     map[string]any{"listChanged": true},
	"prompts":   map[string]any{"listChanged": true},
	"resources": map[string]any{"subscribe": true},
}

// Limits of the listen streams: any resource uri of a template can be
// subscribed to, and every stream holds a goroutine and a connection, so a
// client could otherwise grow either without end.
const (
	maxListeners = 256
	// maxPending bounds the notifications waiting for a slow stream; they
	// coalesce (one list change of each kind, one update per uri), so only
	// more than that many subscribed uris, all updated, reach it.
	maxPending = maxSubscriptions + 8
)

// listenHub is the server's open subscriptions/listen streams. The zero
// value has none.
type listenHub struct {
	mu        sync.Mutex
	listeners map[*listener]bool
}

// listener is one open subscriptions/listen stream: what it honours and
// the notifications waiting to go out on it.
type listener struct {
	id     jsonrpc.ID // the listen request's id: the subscription id (SB-03)
	filter mcp.SubscriptionFilter
	wake   chan struct{} // has a value when pending grew

	mu      sync.Mutex
	pending []*jsonrpc.Message
}

// add opens l; it reports false when maxListeners are open.
func (h *listenHub) add(l *listener) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.listeners) >= maxListeners {
		return false
	}
	if h.listeners == nil {
		h.listeners = map[*listener]bool{}
	}
	h.listeners[l] = true
	return true
}

func (h *listenHub) remove(l *listener) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.listeners, l)
}

// announce queues a notification of method (about uri, for a resource
// update) on every open stream that opted into it (SB-01).
func (h *listenHub) announce(m mutant.Name, method, uri string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.listeners {
		if l.filter.Wants(method, uri) || m == mutant.ListenIgnoresFilter {
			l.queue(l.notice(m, method, uri))
		}
	}
}

// divert queues a request's message on every open stream, tagged as the
// stream's own, and reports whether there was one: mutant
// ProgressOnListenStream's misrouting (PR-11, SB-06).
func (h *listenHub) divert(note *jsonrpc.Message) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.listeners {
		tagged := *note
		tagged.Params = l.tag(note.Params)
		l.queue(&tagged)
	}
	return len(h.listeners) > 0
}

// notice is the notification of method (about uri) on the stream, its
// _meta naming the subscription (SB-03).
func (l *listener) notice(m mutant.Name, method, uri string) *jsonrpc.Message {
	params := map[string]any{}
	if uri != "" {
		params["uri"] = uri
	}
	raw, _ := json.Marshal(params)
	if m != mutant.ListenUntagged {
		raw = l.tag(raw)
	}
	return &jsonrpc.Message{Method: method, Params: raw}
}

// tag adds _meta subscriptionId, the listen request's id, to params (an
// object, or none).
func (l *listener) tag(params json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(params, &fields)
	if fields == nil {
		fields = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(fields["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[mcp.MetaSubscriptionID] = json.RawMessage(l.id.Key())
	fields["_meta"], _ = json.Marshal(meta)
	raw, _ := json.Marshal(fields)
	return raw
}

// queue adds a notification unless an equal one already waits, or
// maxPending do, and wakes the stream.
func (l *listener) queue(n *jsonrpc.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.pending {
		if p.Method == n.Method && string(p.Params) == string(n.Params) {
			return
		}
	}
	if len(l.pending) >= maxPending {
		return
	}
	l.pending = append(l.pending, n)
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// take returns the waiting notifications, oldest first, and forgets them.
func (l *listener) take() []*jsonrpc.Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.pending
	l.pending = nil
	return out
}

// listen answers subscriptions/listen (SB-01 … SB-05): it acknowledges the
// notifications it honours, first, then sends each announced change the
// stream opted into, tagged with the listen request's id, until the client
// cancels the stream (notifications/cancelled over stdio, closing it over
// HTTP: no response then) or the server shuts down (then the listen result
// ends it, SB-05). Requests' own notifications never go on it (PR-11). A
// transport that cannot stream (an application/json answer) gets -32603.
func (s *Server) listen(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	var asked mcp.SubscriptionFilter
	if err := mcp.DecodeParams(params, &p); err != nil || len(p.Notifications) == 0 || p.Notifications[0] != '{' || json.Unmarshal(p.Notifications, &asked) != nil {
		return nil, mcp.InvalidParams("subscriptions/listen needs params.notifications, an object naming the notifications to receive (toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions)")
	}
	l := &listener{id: rc.id, filter: honoured(asked), wake: make(chan struct{}, 1)}
	if !s.hub.add(l) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"the server holds %d subscriptions/listen streams, its limit; close one first", maxListeners)}
	}
	defer s.hub.remove(l)
	if s.opts.Mutant == mutant.ListenNoticeBeforeAck {
		_ = rc.send(l.notice(s.opts.Mutant, mcp.NotificationToolsListChanged, ""))
	}
	ack, _ := json.Marshal(map[string]any{"notifications": l.filter})
	if err := rc.send(&jsonrpc.Message{Method: mcp.NotificationAcknowledged, Params: l.tag(ack)}); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"this connection cannot carry a subscriptions/listen stream (%v); reach the server over stdio or with an HTTP client that accepts text/event-stream", err)}
	}
	for {
		select {
		case <-l.wake:
			for _, n := range l.take() {
				if rc.send(n) != nil {
					return listenResult(l), nil
				}
			}
		case <-rc.Context().Done():
			return listenResult(l), nil
		}
	}
}

// honoured is the part of a listen filter the server serves: list changes
// of tools and prompts, and updates of the resources it has (at most
// maxSubscriptions); its resource list never changes.
func honoured(asked mcp.SubscriptionFilter) mcp.SubscriptionFilter {
	f := mcp.SubscriptionFilter{ToolsListChanged: asked.ToolsListChanged, PromptsListChanged: asked.PromptsListChanged}
	for _, uri := range asked.ResourceSubscriptions {
		if _, ok := resourceContents(uri); ok && len(f.ResourceSubscriptions) < maxSubscriptions {
			f.ResourceSubscriptions = append(f.ResourceSubscriptions, uri)
		}
	}
	return f
}

// listenResult ends a stream the server closes: an empty result naming the
// subscription (SB-05).
func listenResult(l *listener) any {
	return map[string]any{"_meta": map[string]json.RawMessage{mcp.MetaSubscriptionID: json.RawMessage(l.id.Key())}}
}
