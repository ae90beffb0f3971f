package mcpclient

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// discoverResult is a 2026-07-28 server's answer to server/discover.
func discoverResult() map[string]any {
	return map[string]any{"resultType": "complete", "supportedVersions": []string{mcp.ModernVersion}, "capabilities": map[string]any{"tools": map[string]any{}}}
}

// connectModern runs Connect with opts while the fake answers server/discover
// as a 2026-07-28 server.
func connectModern(t *testing.T, f *fakeTransport, opts Options) *Session {
	t.Helper()
	type result struct {
		s   *Session
		err error
	}
	res := make(chan result, 1)
	go func() {
		s, err := Connect(context.Background(), f, opts)
		res <- result{s, err}
	}()
	f.reply(t, f.expect(t, mcp.MethodDiscover), discoverResult())
	r := <-res
	if r.err != nil {
		t.Fatalf("Connect: %v", r.err)
	}
	if r.s.Era() != EraModern || r.s.ProtocolVersion() != mcp.ModernVersion {
		t.Fatalf("era %q version %q, want modern %s", r.s.Era(), r.s.ProtocolVersion(), mcp.ModernVersion)
	}
	t.Cleanup(func() { _ = r.s.Close() })
	return r.s
}

// call runs CallTool in the background; its error arrives on the channel.
func call(s *Session, name string, args any) <-chan error {
	res := make(chan error, 1)
	go func() {
		_, err := s.CallTool(context.Background(), name, args)
		res <- err
	}()
	return res
}

// metaOf is a request's params._meta.
func metaOf(t *testing.T, m *jsonrpc.Message) map[string]any {
	t.Helper()
	meta, _ := params(t, m)["_meta"].(map[string]any)
	return meta
}

// TestEraFallback: under EraAuto a legacy server's answer to the probe,
// whatever it is (-32601, -32600, a result that is no DiscoverResult,
// silence), leads to initialize (LC-45, LC-46); EraModern refuses such a
// server; mutant NoEraFallback falls back on -32601 only.
func TestEraFallback(t *testing.T) {
	answers := map[string]func(f *fakeTransport, d *jsonrpc.Message){
		"-32601": func(f *fakeTransport, d *jsonrpc.Message) {
			f.deliver(t, jsonrpc.NewError(d.ID, jsonrpc.CodeMethodNotFound, "no"))
		},
		"-32600": func(f *fakeTransport, d *jsonrpc.Message) {
			f.deliver(t, jsonrpc.NewError(d.ID, jsonrpc.CodeInvalidRequest, "not initialized"))
		},
		"empty result": func(f *fakeTransport, d *jsonrpc.Message) { f.reply(t, d, map[string]any{}) },
		"legacy -32022": func(f *fakeTransport, d *jsonrpc.Message) {
			f.deliver(t, &jsonrpc.Message{ID: d.ID, Error: mcp.UnsupportedVersion(mcp.ModernVersion, []string{"2025-11-25"})})
		},
		"no answer": func(*fakeTransport, *jsonrpc.Message) {},
	}
	for name, answer := range answers {
		for _, tc := range []struct {
			era      Era
			m        mutant.Name
			fallback bool
		}{{EraAuto, "", true}, {EraModern, "", false}, {EraAuto, mutant.NoEraFallback, name == "-32601"}} {
			synctest.Test(t, func(t *testing.T) {
				f := newFakeTransport()
				res := make(chan error, 1)
				go func() {
					s, err := Connect(context.Background(), f, Options{Era: tc.era, Mutant: tc.m})
					if err == nil {
						err = s.Close()
					}
					res <- err
				}()
				answer(f, f.expect(t, mcp.MethodDiscover))
				if !tc.fallback {
					if err := <-res; err == nil {
						t.Errorf("%s, era %q, mutant %q: connected, want a refusal", name, tc.era, tc.m)
					}
					return
				}
				f.reply(t, f.expect(t, "initialize"), initResult("2025-11-25"))
				f.expect(t, "notifications/initialized")
				if err := <-res; err != nil {
					t.Errorf("%s, era %q, mutant %q: %v", name, tc.era, tc.m, err)
				}
			})
		}
	}
}

// TestModernMetaOnEveryRequest: every 2026-07-28 request carries _meta with
// the protocol version, the client's capabilities and clientInfo (JR-46,
// JR-48), merged with the request's own _meta; mutant ModernNoMeta drops it.
func TestModernMetaOnEveryRequest(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.ModernNoMeta} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: m})
			res := make(chan error, 1)
			go func() {
				res <- s.Call(context.Background(), "tools/list", map[string]any{"_meta": map[string]any{"progressToken": 7}}, nil)
			}()
			req := f.expect(t, "tools/list")
			meta := metaOf(t, req)
			complete := meta[mcp.MetaProtocolVersion] == mcp.ModernVersion && meta[mcp.MetaClientCapabilities] != nil && meta[mcp.MetaClientInfo] != nil
			if complete != (m == "") {
				t.Errorf("mutant %q: _meta %v", m, meta)
			}
			if m == "" && meta["progressToken"] != float64(7) {
				t.Errorf("the request's own _meta was lost: %v", meta)
			}
			f.reply(t, req, map[string]any{"tools": []any{}})
			if err := <-res; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// inputRequired is an InputRequiredResult asking for an elicitation, a
// sample and the roots, with state.
func inputRequiredResult(state string) map[string]any {
	r := map[string]any{"resultType": "input_required", "inputRequests": map[string]any{
		"form":   map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "m", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "default": 30}}}}},
		"sample": map[string]any{"method": "sampling/createMessage", "params": map[string]any{"messages": []any{}, "maxTokens": 5}},
		"roots":  map[string]any{"method": "roots/list"},
	}}
	if state != "" {
		r["requestState"] = state
	}
	return r
}

// TestInputRequiredRetry: an InputRequiredResult is answered by a retry with
// a new id, every input request satisfied and requestState echoed exactly
// (MR-06); the next request carries neither. The MRTR mutants each break one
// of these.
func TestInputRequiredRetry(t *testing.T) {
	const state = `{"nonce":"n","x":"<&>"}`
	for _, m := range []mutant.Name{"", mutant.MRTRSameID, mutant.MRTRStateAltered, mutant.MRTRStateReused} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: m})
			res := call(s, "t", map[string]any{})
			first := f.expect(t, "tools/call")
			f.reply(t, first, inputRequiredResult(state))
			retry := f.expect(t, "tools/call")
			p := params(t, retry)
			responses, _ := p["inputResponses"].(map[string]any)
			form, _ := responses["form"].(map[string]any)
			content, _ := form["content"].(map[string]any)
			if form["action"] != "accept" || content["n"] != float64(30) || responses["sample"] == nil || responses["roots"] == nil {
				t.Errorf("mutant %q: inputResponses %v", m, responses)
			}
			if sameID := retry.ID == first.ID; sameID != (m == mutant.MRTRSameID) {
				t.Errorf("mutant %q: retry id %s, first %s", m, retry.ID, first.ID)
			}
			if echoed := p["requestState"] == state; echoed != (m != mutant.MRTRStateAltered) {
				t.Errorf("mutant %q: requestState %q, sent %q", m, p["requestState"], state)
			}
			f.reply(t, retry, map[string]any{"content": []any{}})
			if err := <-res; err != nil {
				t.Fatal(err)
			}
			res = call(s, "other", map[string]any{})
			nextReq := f.expect(t, "tools/call")
			next := params(t, nextReq)
			if _, reused := next["requestState"]; reused != (m == mutant.MRTRStateReused) {
				t.Errorf("mutant %q: the next request carries %v", m, next)
			}
			f.reply(t, nextReq, map[string]any{"content": []any{}})
			<-res
		})
	}
}

// TestUndeclaredInputFailsTheCall: an input request for a mode the client
// did not declare (URL elicitation) fails the call without a retry
// (MR-04, EL-02); mutant MRTRUndeclaredInput answers it and retries.
func TestUndeclaredInputFailsTheCall(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.MRTRUndeclaredInput} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: m})
			res := call(s, "t", nil)
			f.reply(t, f.expect(t, "tools/call"), map[string]any{"resultType": "input_required", "inputRequests": map[string]any{
				"u": map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "url", "message": "m", "url": "https://example.com"}},
			}})
			if m == "" {
				wantKind(t, <-res, failure.ErrProtocol)
				f.nothingSent(t)
				return
			}
			f.reply(t, f.expect(t, "tools/call"), map[string]any{"content": []any{}})
			if err := <-res; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestResultType: a result without resultType is complete; one of an
// unknown type is an error (JR-16), which mutant ResultTypeUnknownAccepted
// takes for complete.
func TestResultType(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.ResultTypeUnknownAccepted} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: m})
			res := call(s, "t", nil)
			f.reply(t, f.expect(t, "tools/call"), map[string]any{"content": []any{}})
			if err := <-res; err != nil {
				t.Fatalf("no resultType: %v", err)
			}
			res = call(s, "t", nil)
			f.reply(t, f.expect(t, "tools/call"), map[string]any{"resultType": "later", "content": []any{}})
			if err := <-res; (err == nil) != (m != "") {
				t.Errorf("mutant %q: unknown resultType: %v", m, err)
			}
		})
	}
}

// TestModernCancelOverStdio: over a transport without streams a 2026-07-28
// call that times out is cancelled with notifications/cancelled.
func TestModernCancelOverStdio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeTransport()
		s := connectModern(t, f, Options{CallTimeout: time.Second})
		res := call(s, "t", nil)
		req := f.expect(t, "tools/call")
		n := f.expect(t, "notifications/cancelled")
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(n.Params, &p)
		if string(p.RequestID) != req.ID.String() {
			t.Errorf("cancelled %s, want %s", p.RequestID, req.ID)
		}
		wantKind(t, <-res, failure.ErrTimeout)
	})
}

// ack is the server's acknowledgement of subscription id honouring filter.
func ack(t *testing.T, id jsonrpc.ID, filter map[string]any) *jsonrpc.Message {
	t.Helper()
	n, err := jsonrpc.NewNotification(methodAcknowledged, map[string]any{"notifications": filter, "_meta": map[string]any{metaSubscriptionID: id}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// listenAndClose opens a subscription for filter in the background and
// closes it once open; the channel receives how Listen ended.
func listenAndClose(s *Session, filter map[string]any) <-chan error {
	res := make(chan error, 1)
	go func() {
		sub, err := s.Listen(context.Background(), filter)
		if err == nil {
			sub.Close()
		}
		res <- err
	}()
	return res
}

// TestListenChecksTheAcknowledgement: subscriptions/listen is open once the
// acknowledgement honours what was asked (SB-02, SB-04); one that honours
// less closes the stream (notifications/cancelled over stdio) and fails;
// mutant ListenNoAckCheck takes the stream as open at once.
func TestListenChecksTheAcknowledgement(t *testing.T) {
	asked := map[string]any{"toolsListChanged": true}
	for _, tc := range []struct {
		m        mutant.Name
		honoured map[string]any
		ok       bool
	}{{"", asked, true}, {"", map[string]any{}, false}, {mutant.ListenNoAckCheck, map[string]any{}, true}} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: tc.m})
			res := listenAndClose(s, asked)
			req := f.expect(t, MethodListen)
			if tc.m == "" {
				f.deliver(t, ack(t, req.ID, tc.honoured))
			}
			if err := <-res; (err == nil) != tc.ok {
				t.Errorf("mutant %q, honoured %v: %v", tc.m, tc.honoured, err)
			}
			f.expect(t, "notifications/cancelled")
		})
	}
}

// TestListenIgnoresForeignSubscriptions: an acknowledgement naming a
// subscription the client never opened is not its own subscription's
// (ST-15), so the short one before its own changes nothing; mutant
// ListenNotDemultiplexed takes it for its own and fails.
func TestListenIgnoresForeignSubscriptions(t *testing.T) {
	asked := map[string]any{"toolsListChanged": true}
	for _, m := range []mutant.Name{"", mutant.ListenNotDemultiplexed} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: m})
			res := listenAndClose(s, asked)
			req := f.expect(t, MethodListen)
			f.deliver(t, ack(t, jsonrpc.StringID("other"), map[string]any{}))
			f.deliver(t, ack(t, req.ID, asked))
			if err := <-res; (err == nil) != (m == "") {
				t.Errorf("mutant %q: %v", m, err)
			}
			f.expect(t, "notifications/cancelled")
		})
	}
}

// TestCompleteResult: a result whose resultType is "complete" ends the
// call (JR-15); mutant ModernCompleteRefused fails it, breaking every
// 2026-07-28 conversation (LC-40).
func TestCompleteResult(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.ModernCompleteRefused} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			s := connectModern(t, f, Options{Mutant: m})
			res := call(s, "t", nil)
			f.reply(t, f.expect(t, "tools/call"), map[string]any{"resultType": "complete", "content": []any{}})
			if err := <-res; (err != nil) != (m != "") {
				t.Errorf("mutant %q: a complete result: %v", m, err)
			}
		})
	}
}
