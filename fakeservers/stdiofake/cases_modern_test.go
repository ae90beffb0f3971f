package stdiofake

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// callWith sends a 2026-07-28 tools/call of tool declaring caps, with the
// retry members extra.
func (f *fakeConn) callWith(id int64, tool string, caps map[string]any, extra map[string]any) {
	f.t.Helper()
	params := map[string]any{"name": tool, "arguments": map[string]any{},
		"_meta": map[string]any{mcp.MetaProtocolVersion: mcp.ModernVersion, mcp.MetaClientCapabilities: caps}}
	for k, v := range extra {
		params[k] = v
	}
	f.sendMessage(jsonrpc.IntID(id), "tools/call", params)
}

// wantInputRequired reads the next line, an InputRequiredResult for id.
func (f *fakeConn) wantInputRequired(id int64) fakeservers.InputRequiredResult {
	f.t.Helper()
	var r fakeservers.InputRequiredResult
	if err := json.Unmarshal(f.wantResult(jsonrpc.IntID(id)), &r); err != nil || r.ResultType != "input_required" {
		f.t.Fatalf("result %+v (%v); want an InputRequiredResult", r, err)
	}
	return r
}

// The input round: one request per capability declared, the state; a retry
// with every answer and the state exactly gets the result, one without the
// state, with it altered, or with a state when none was sent -32602.
func TestInputRequired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "input-required", Era: fakeservers.Modern})
		f.discover()
		caps := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}}
		f.callWith(1, fakeservers.ToolAsk, caps, nil)
		r := f.wantInputRequired(1)
		if len(r.InputRequests) != 2 || r.InputRequests["confirm"] == nil || r.InputRequests["sample"] == nil || r.RequestState != fakeservers.RequestState {
			t.Errorf("input round %+v; want confirm and sample asked, and the fake's requestState", r)
		}
		answers := map[string]any{"confirm": map[string]any{"action": "accept"}, "sample": map[string]any{}}
		f.callWith(2, fakeservers.ToolAsk, caps, map[string]any{"inputResponses": answers, "requestState": fakeservers.RequestState})
		f.wantCallText(jsonrpc.IntID(2), "ok ask")
		f.callWith(3, fakeservers.ToolAsk, caps, map[string]any{"inputResponses": answers, "requestState": strings.TrimSpace(fakeservers.RequestState)})
		f.wantError(jsonrpc.IntID(3), jsonrpc.CodeInvalidParams)
		f.callWith(4, fakeservers.ToolAsk, caps, map[string]any{"inputResponses": map[string]any{"confirm": map[string]any{}}, "requestState": fakeservers.RequestState})
		if e := f.wantError(jsonrpc.IntID(4), jsonrpc.CodeInvalidParams); !strings.Contains(e.Message, "sample") {
			t.Errorf("a retry without the sample answer: %q; want the missing answer named", e.Message)
		}

		f.callWith(5, fakeservers.ToolAskStateless, caps, nil)
		if r := f.wantInputRequired(5); r.RequestState != "" {
			t.Errorf("ask-stateless sent requestState %q; want none", r.RequestState)
		}
		f.callWith(6, fakeservers.ToolAskStateless, caps, map[string]any{"inputResponses": answers, "requestState": "x"})
		f.wantError(jsonrpc.IntID(6), jsonrpc.CodeInvalidParams)
		f.callWith(7, fakeservers.ToolAskStateless, caps, map[string]any{"inputResponses": answers})
		f.wantCallText(jsonrpc.IntID(7), "ok ask-stateless")

		f.callWith(8, fakeservers.ToolAsk, map[string]any{}, nil)
		f.wantCallText(jsonrpc.IntID(8), "ok ask") // nothing declared: nothing to ask
		f.callWith(9, fakeservers.ToolEcho, caps, nil)
		f.wantCallText(jsonrpc.IntID(9), "ok echo")
	})
}

// The undeclared round asks for what the call does not declare: sampling
// first, a mode not declared once every capability is.
func TestInputUndeclared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "input-undeclared", Era: fakeservers.Modern})
		for i, tc := range []struct {
			caps map[string]any
			want string
		}{
			{map[string]any{"elicitation": map[string]any{}}, `"sampling/createMessage"`},
			{map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}}, `"mode":"url"`},
		} {
			id := int64(i + 1)
			f.callWith(id, fakeservers.ToolAsk, tc.caps, nil)
			r := f.wantInputRequired(id)
			b, _ := json.Marshal(r.InputRequests[fakeservers.UndeclaredKey])
			if len(r.InputRequests) != 1 || !strings.Contains(string(b), tc.want) {
				t.Errorf("declaring %v: asked %s; want one request holding %s", tc.caps, b, tc.want)
			}
		}
	})
}

// A subscription is acknowledged first (SB-02) under its request's id
// (SB-03), with what was asked, or nothing when short; the request stays
// unanswered.
func TestListen(t *testing.T) {
	for _, short := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			c := "listen"
			if short {
				c = "listen-ack-short"
			}
			f := startFake(t, Options{Case: c, Era: fakeservers.Modern})
			f.modernRequest(jsonrpc.IntID(0), mcp.MethodDiscover, nil)
			if d := string(f.wantResult(jsonrpc.IntID(0))); !strings.Contains(d, `"listChanged":true`) {
				t.Errorf("discover result %s; want tools.listChanged", d)
			}
			f.modernRequest(jsonrpc.StringID("sub"), fakeservers.MethodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
			ack := f.nextMessage()
			var p struct {
				Meta          map[string]json.RawMessage `json:"_meta"`
				Notifications map[string]any             `json:"notifications"`
			}
			if err := json.Unmarshal(ack.Params, &p); err != nil || ack.Method != fakeservers.MethodAcknowledged || string(p.Meta[fakeservers.MetaSubscriptionID]) != `"sub"` {
				t.Fatalf("first message %s %s; want the acknowledgement of subscription \"sub\"", ack.Method, ack.Params)
			}
			if honoured := p.Notifications["toolsListChanged"] == true; honoured == short {
				t.Errorf("short %v: acknowledged %v", short, p.Notifications)
			}
			f.closeStdin()
			f.wantStatus(0)
		})
	}
}

func TestResultTypeUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "result-type-unknown", Era: fakeservers.Modern})
		f.callWith(1, fakeservers.ToolStrange, map[string]any{}, nil)
		wantResultType(t, f.wantResult(jsonrpc.IntID(1)), fakeservers.ResultTypeUnknown)
		f.callWith(2, fakeservers.ToolEcho, map[string]any{}, nil)
		wantResultType(t, f.wantResult(jsonrpc.IntID(2)), "complete")
	})
}
