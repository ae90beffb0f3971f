package fakeservers

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The client-requests case: a tools/call of ToolAsk asks the client for
// what it declared (a sample, a form, a URL, its roots), in the legacy era
// as requests to the client (one at a time, each awaited), in 2026-07-28 as
// one input round (MR-01); the client's answers are what the checks judge.

// DefaultReplyPatience is how long the client-requests case waits for the
// client's answer to each of its requests when the fake's delay option is
// not set.
const DefaultReplyPatience = 5 * time.Second

// ReplyPatience is how long a case that asks the client waits for each
// answer: delay, the fake's delay option, or DefaultReplyPatience when it
// is not set.
func ReplyPatience(delay time.Duration) time.Duration {
	if delay == 0 {
		return DefaultReplyPatience
	}
	return delay
}

// Keys of the client-requests case's requests: each request's key in its
// input round, and "srv-"+key its id in the legacy era.
const (
	KeySample = "sample"
	KeyForm   = "form"
	KeyURL    = "url"
	KeyRoots  = "roots"
	KeyPing   = "ping"
	// KeyPingInt is the ping whose id is the integer PingIntID, which the
	// client's answer echoes as an integer (JR-07).
	KeyPingInt = "ping-int"
	// KeyUnknownMethod is the request of MethodUnknownRequest, which no
	// client knows (JR-22).
	KeyUnknownMethod = "unknown-method"
	// KeySampleBad is a sampling/createMessage without its required
	// messages, which a client refuses with -32602 (JR-23).
	KeySampleBad = "sample-bad"
)

// SampleProgressToken is the progress token of the legacy-era request of
// KeySample, for the client's progress on it (PR-06).
const SampleProgressToken = "srv-sample-progress"

// PingIntID is the id of the ping of KeyPingInt.
const PingIntID = 7

// MethodUnknownRequest is the method of the request of KeyUnknownMethod:
// one no version of MCP defines.
const MethodUnknownRequest = "mcpconform/unknown"

// StaleRequestID is the id a stale cancellation of the client-requests
// case names that the fake never sent.
var StaleRequestID = jsonrpc.StringID("srv-never-sent")

// MethodUnknown is the method of the notification the client-requests
// case sends, in the legacy era, before its requests: one no version of
// MCP defines, which the client is to ignore, never answer (JR-14).
const MethodUnknown = "notifications/mcpconform/unknown"

// UnknownNotification is the client-requests case's notification of
// MethodUnknown.
func UnknownNotification() *jsonrpc.Message {
	m, err := jsonrpc.NewNotification(MethodUnknown, map[string]any{"note": "mcpconform fake: a notification no client knows"})
	if err != nil {
		panic("fakeservers: build " + MethodUnknown + ": " + err.Error()) // a map of strings always encodes
	}
	return m
}

// ReplyID is the id of the legacy-era request of key: the integer
// PingIntID for KeyPingInt, else the string "srv-"+key.
func ReplyID(key string) jsonrpc.ID {
	if key == KeyPingInt {
		return jsonrpc.IntID(PingIntID)
	}
	return jsonrpc.StringID("srv-" + key)
}

// StaleCancellations are the notifications/cancelled the client-requests
// case sends once the client has answered its first ping: one for that
// ping, already answered, and one for StaleRequestID, never sent; a
// client ignores both and goes on (CN-07, CN-08).
func StaleCancellations() []*jsonrpc.Message {
	var out []*jsonrpc.Message
	for _, id := range []jsonrpc.ID{ReplyID(KeyPing), StaleRequestID} {
		m, err := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform fake: a stale cancellation"})
		if err != nil {
			panic("fakeservers: build notifications/cancelled: " + err.Error()) // an id and a string always encode
		}
		out = append(out, m)
	}
	return out
}

// FormSchema is the requestedSchema of the form the case asks for: one
// property of each primitive type with a default (EL-05, EL-06), the
// string required.
var FormSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":      map[string]any{"type": "string", "default": "mcpconform"},
		"count":     map[string]any{"type": "integer", "minimum": 0, "maximum": 10, "default": 3},
		"ratio":     map[string]any{"type": "number", "default": 0.5},
		"subscribe": map[string]any{"type": "boolean", "default": true},
		"colour":    map[string]any{"type": "string", "enum": []any{"red", "green"}, "default": "green"},
	},
	"required": []any{"name"},
}

// ClientRequest is one request the case asks of the client.
type ClientRequest struct {
	Key    string
	Method string
	Params map[string]any
	// After are the notifications sent once the client has answered it
	// (or the wait for its answer ended).
	After []*jsonrpc.Message
}

// ModernVersion is the version of the 2026-07-28 era, as the client
// requests ask for it.
const ModernVersion = "2026-07-28"

// ClientRequests are the requests the case asks of a client that declares
// caps and speaks version (ModernVersion in the 2026-07-28 era): before
// version 2026-07-28 first a ping, which needs no capability (PG-01; the
// 2026-07-28 era has no ping and its servers send no requests), followed
// by StaleCancellations, a ping with an integer id and a request of a
// method no version defines; a sample where it declares sampling (before
// 2026-07-28 with the progress token SampleProgressToken, and followed by
// one without its messages); from 2025-06-18 a
// form where it declares elicitation (with mode from 2025-11-25) and,
// from 2025-11-25, a URL where it declares elicitation.url (with an
// elicitationId in 2025-11-25 only); its roots where it declares roots; then, in 2025-11-25, lateRequests. None for
// what it does not declare (MR-04, LC-11) but the tool-enabled sample of
// KeySampleTools.
func ClientRequests(caps map[string]json.RawMessage, version string) []ClientRequest {
	var out []ClientRequest
	if version != ModernVersion {
		out = append(out, ClientRequest{Key: KeyPing, Method: "ping", After: StaleCancellations()},
			ClientRequest{Key: KeyPingInt, Method: "ping"}, ClientRequest{Key: KeyUnknownMethod, Method: MethodUnknownRequest})
	}
	if declared(caps, "sampling", "") {
		sample := map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "mcpconform fake: say hello"}}},
			"maxTokens": 16,
		}
		if version != ModernVersion {
			sample["_meta"] = map[string]any{"progressToken": SampleProgressToken}
		}
		out = append(out, ClientRequest{Key: KeySample, Method: "sampling/createMessage", Params: sample})
		if version != ModernVersion {
			out = append(out, ClientRequest{Key: KeySampleBad, Method: "sampling/createMessage", Params: map[string]any{"maxTokens": 16}})
		}
	}
	modes := version >= "2025-11-25"
	if version >= "2025-06-18" && declared(caps, "elicitation", "") {
		form := map[string]any{"message": "mcpconform fake: fill in the form", "requestedSchema": FormSchema}
		if modes {
			form["mode"] = "form"
		}
		out = append(out, ClientRequest{Key: KeyForm, Method: "elicitation/create", Params: form})
	}
	if modes && declared(caps, "elicitation", "url") {
		url := map[string]any{"mode": "url", "message": "mcpconform fake: open the page", "url": "https://example.com/mcpconform"}
		if version != ModernVersion {
			url["elicitationId"] = "mcpconform-1"
		}
		out = append(out, ClientRequest{Key: KeyURL, Method: "elicitation/create", Params: url})
	}
	if declared(caps, "roots", "") {
		out = append(out, ClientRequest{Key: KeyRoots, Method: "roots/list"})
	}
	return append(out, lateRequests(caps, version)...)
}

// Message is r as a legacy-era request to the client, with id ReplyID.
func (r ClientRequest) Message() *jsonrpc.Message {
	var params any
	if r.Params != nil {
		params = r.Params
	}
	m, err := jsonrpc.NewRequest(ReplyID(r.Key), r.Method, params)
	if err != nil {
		panic("fakeservers: build " + r.Method + ": " + err.Error()) // maps of strings and numbers always encode
	}
	return m
}

// Handshake is what a legacy client said in its initialize request m: the
// capabilities it declared and the version the fake answers with.
func Handshake(m *jsonrpc.Message) (caps map[string]json.RawMessage, version string) {
	var p struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(m.Params, &p) // unreadable: nothing declared, the fallback version
	return p.Capabilities, negotiated(p.ProtocolVersion)
}

// negotiated is the version a fake answers a proposal of proposed with:
// the proposal when the fake speaks it, else the latest legacy version.
func negotiated(proposed string) string {
	if slices.Contains(legacyVersions, proposed) {
		return proposed
	}
	return latestLegacyVersion
}

// AskClient answers tools/call c of the client-requests case in the
// 2026-07-28 era: ToolAsk's first call gets an input round with the
// requests for what the call declares, its retry (and any call with
// nothing to ask) the tool's result.
func AskClient(c ToolCall) *jsonrpc.Message {
	requests := ClientRequests(Capabilities(c.Req), ModernVersion)
	if c.Name != ToolAsk || len(requests) == 0 || ReadRetry(c.Req).IsRetry() {
		return c.OK()
	}
	round := map[string]any{}
	for _, r := range requests {
		req := inputRequest{Method: r.Method}
		if r.Params != nil {
			req.Params = r.Params // a nil map would go out as "params": null
		}
		round[r.Key] = req
	}
	return ResultMessage(c.Req.ID, InputRequiredResult{ResultType: resultInputRequired, InputRequests: round})
}

// Replies are the client's responses to a fake's requests, awaited by id.
type Replies struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

// Expect returns a channel closed when the response to id arrives; call it
// before sending the request.
func (r *Replies) Expect(id jsonrpc.ID) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting == nil {
		r.waiting = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	r.waiting[id.Key()] = ch
	return ch
}

// Arrived takes response m: it wakes whoever expects its id, or the
// integer id whose text a string id is (7 answered as "7": the checks
// judge the id's type, JR-07; the fake need not wait out its patience).
func (r *Replies) Arrived(m *jsonrpc.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, key := range []string{m.ID.Key(), strings.Trim(m.ID.Key(), `"`)} {
		if ch, ok := r.waiting[key]; ok {
			close(ch)
			delete(r.waiting, key)
			return
		}
	}
}

// Asker is the state of a client-requests fake: what the client declared
// in its initialize, and the responses awaited. Its methods are safe for
// concurrent use.
type Asker struct {
	Replies Replies

	mu      sync.Mutex
	caps    map[string]json.RawMessage
	version string
}

// Seen takes a message from the client: an initialize says what it
// declared, a response wakes whoever expects it.
func (a *Asker) Seen(m *jsonrpc.Message) {
	switch m.Kind() {
	case jsonrpc.KindRequest:
		if m.Method == MethodInitialize {
			a.mu.Lock()
			a.caps, a.version = Handshake(m)
			a.mu.Unlock()
		}
	case jsonrpc.KindResult, jsonrpc.KindError:
		a.Replies.Arrived(m)
	}
}

// Declared is what the client declared in its initialize: its
// capabilities, and the version the fake answers it with.
func (a *Asker) Declared() (caps map[string]json.RawMessage, version string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps, a.version
}

// Requests are the legacy-era requests for what the client declared in
// its initialize.
func (a *Asker) Requests() []ClientRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return ClientRequests(a.caps, a.version)
}

// ClientRequestsCase describes the client-requests case of both fakes.
const ClientRequestsCase = "offers ask; its tools/call sends the client a notification of a method MCP does not define and pings it, then cancels that answered ping and a request never sent, pings with the integer id 7 and sends a request of a method MCP does not define (legacy era), and asks it for a sample (legacy era: with a progress token, then one without messages), a form (one field of each primitive type, each with a default), a URL and its roots, each only when declared (2025-11-25: then a tool-enabled sample to a client without sampling.tools or two malformed ones to a client with it, a form without mode and, to a client with URL mode, a notifications/elicitation/complete for an id never used and a ping): legacy as requests to the client (ids srv-<key>, one at a time, each awaited up to the fake's delay), 2026-07-28 as one input round; then the result"
