package fakeservers

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The input-required round trip of 2026-07-28 (MRTR, MR-01 … MR-08) as the
// fakes script it: a tools/call of an asking tool is answered with an
// InputRequiredResult, and its retry, carrying the answers and the state,
// with the tool's result. The fakes keep nothing between the rounds: the
// retry carries it all, as for a stateless server (MR-05).

// Tools of the input-required cases.
const (
	ToolAsk          = "ask"           // asks for input, with a requestState
	ToolAskStateless = "ask-stateless" // asks for input, without a requestState
	ToolEcho         = "echo"          // asks nothing: called after the others, it must carry none of their inputs
	// ToolStrange is the tool of the result-type-unknown cases: its
	// result has a resultType no client knows (ResultTypeUnknown).
	ToolStrange = "strange"
)

// RequestState is the requestState the fakes send: JSON inside a string,
// with escapes, characters beyond ASCII and a trailing space, so that a
// client that parses, re-encodes, trims or cuts it alters it (MR-06).
const RequestState = `{"fake":"mcpconform","nonce":"7f3a9c","note":"échappé \"quoted\" \\ slash / end "} `

// The result types of 2026-07-28 beyond "complete" that the fakes send.
const (
	resultInputRequired = "input_required"
	// ResultTypeUnknown is a resultType no client knows (JR-16).
	ResultTypeUnknown = "mcpconform_unknown"
)

// Retry is what a tools/call carries for an input round: the answers and
// the state. A first call carries neither.
type Retry struct {
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	// RequestState is the raw JSON of the member, nil when absent.
	RequestState json.RawMessage `json:"requestState"`
}

// ReadRetry reads the input round members of request m's params.
func ReadRetry(m *jsonrpc.Message) Retry {
	var r Retry
	_ = mcp.DecodeParams(m.Params, &r) // unreadable params: a first call
	return r
}

// IsRetry reports whether r carries answers or a state.
func (r Retry) IsRetry() bool { return r.InputResponses != nil || r.RequestState != nil }

// State is the requestState r carries, decoded, and whether it carries one.
func (r Retry) State() (string, bool) {
	var s string
	if r.RequestState == nil || json.Unmarshal(r.RequestState, &s) != nil {
		return "", r.RequestState != nil
	}
	return s, true
}

// Capabilities are the client capabilities request m declares in its _meta
// (JR-46); nil when it declares none.
func Capabilities(m *jsonrpc.Message) map[string]json.RawMessage {
	meta, _ := mcp.ModernRequest(m)
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(meta.Capabilities, &caps)
	return caps
}

// declared reports whether caps declares feature (an object), and within
// it mode when mode is set.
func declared(caps map[string]json.RawMessage, feature, mode string) bool {
	var f map[string]json.RawMessage
	if json.Unmarshal(caps[feature], &f) != nil || f == nil {
		return false
	}
	if mode == "" {
		return true
	}
	_, ok := f[mode]
	return ok
}

// inputRequest is one request of an InputRequiredResult.
type inputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// The input requests the fakes ask for, by key.
var (
	elicitForm = inputRequest{Method: "elicitation/create", Params: map[string]any{
		"message": "mcpconform fake: confirm to go on",
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
			"confirmed": map[string]any{"type": "boolean", "default": true},
		}},
	}}
	elicitURL = inputRequest{Method: "elicitation/create", Params: map[string]any{
		"mode": "url", "message": "mcpconform fake: open the page", "url": "https://example.com/mcpconform", "elicitationId": "mcpconform-1",
	}}
	sample = inputRequest{Method: "sampling/createMessage", Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "mcpconform fake: say hello"}}},
		"maxTokens": 16,
	}}
	sampleTools = inputRequest{Method: "sampling/createMessage", Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "mcpconform fake: use a tool"}}},
		"maxTokens": 16,
		"tools":     []any{map[string]any{"name": "lookup", "inputSchema": map[string]any{"type": "object"}}},
	}}
	listRoots = inputRequest{Method: "roots/list"}
)

// InputRequests are the input requests a fake asks of a request that
// declares caps: one for each capability declared (elicitation in form
// mode, sampling, roots), none when it declares none (MR-04).
func InputRequests(caps map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	if declared(caps, "elicitation", "") {
		out["confirm"] = elicitForm
	}
	if declared(caps, "sampling", "") {
		out["sample"] = sample
	}
	if declared(caps, "roots", "") {
		out["roots"] = listRoots
	}
	return out
}

// UndeclaredKey is the key of the input request an undeclared-input fake
// asks for.
const UndeclaredKey = "undeclared"

// UndeclaredRequest is an input request for a capability or mode caps does
// not declare, which a server must never send (MR-04) and a client must
// never answer (EL-02, SM-07): sampling, roots or elicitation when it is
// missing, else URL-mode elicitation or sampling with tools; what it asks
// for, and false when caps declares all of them.
func UndeclaredRequest(caps map[string]json.RawMessage) (req any, what string, ok bool) {
	switch {
	case !declared(caps, "sampling", ""):
		return sample, "sampling", true
	case !declared(caps, "roots", ""):
		return listRoots, "roots", true
	case !declared(caps, "elicitation", ""):
		return elicitForm, "elicitation", true
	case !declared(caps, "elicitation", "url"):
		return elicitURL, "URL-mode elicitation", true
	case !declared(caps, "sampling", "tools"):
		return sampleTools, "sampling with tools", true
	}
	return nil, "", false
}

// InputRequiredResult is the result of an input round (MR-03).
type InputRequiredResult struct {
	ResultType    string         `json:"resultType"`
	InputRequests map[string]any `json:"inputRequests,omitempty"`
	RequestState  string         `json:"requestState,omitempty"`
}

// AskInput answers tools/call c of an input-required case: an asking tool
// called first gets an InputRequiredResult (the requests for the
// capabilities the call declares, or with undeclared the one request for a
// capability it does not), and its retry the tool's result when it brings
// an answer to every request and the state exactly as sent, else -32602
// saying what it lacks; any other tool, or an asking tool with nothing to
// ask, gets its result at once.
func AskInput(c ToolCall, undeclared bool) *jsonrpc.Message {
	if c.Name != ToolAsk && c.Name != ToolAskStateless {
		return c.OK()
	}
	caps := Capabilities(c.Req)
	requests := InputRequests(caps)
	if undeclared {
		requests = map[string]any{}
		if req, _, ok := UndeclaredRequest(caps); ok {
			requests[UndeclaredKey] = req
		}
	}
	if len(requests) == 0 {
		return c.OK()
	}
	state := RequestState
	if c.Name == ToolAskStateless {
		state = ""
	}
	r := ReadRetry(c.Req)
	if !r.IsRetry() {
		return ResultMessage(c.Req.ID, InputRequiredResult{ResultType: resultInputRequired, InputRequests: requests, RequestState: state})
	}
	if problem := r.Problem(requests, state); problem != "" {
		return jsonrpc.NewError(c.Req.ID, jsonrpc.CodeInvalidParams, "mcpconform fake: "+problem)
	}
	return c.OK()
}

// Problem says how retry r fails the input round that asked requests with
// state ("" when none was sent): an answer missing, or the state not sent
// back exactly (MR-06); "" when it is in order.
func (r Retry) Problem(requests map[string]any, state string) string {
	var missing []string
	for k := range requests {
		if _, ok := r.InputResponses[k]; !ok {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	got, has := r.State()
	switch {
	case len(missing) > 0:
		return fmt.Sprintf("the retry answers no input request %q (MR-06)", missing)
	case state == "" && has:
		return "the retry carries a requestState, and none was sent (MR-06)"
	case state != "" && (!has || got != state):
		return fmt.Sprintf("the retry's requestState %s is not the one sent, %q, exactly (MR-06)", r.RequestState, state)
	}
	return ""
}

// WithResultType is c's success response with resultType t: a type the
// client does not know when t is ResultTypeUnknown (JR-16).
func (c ToolCall) WithResultType(t string) *jsonrpc.Message {
	return ResultMessage(c.Req.ID, CallResult{Content: []TextContent{{Type: "text", Text: "ok " + c.Name}}, ResultType: t})
}

// ModernCases describe the cases of the 2026-07-28 era that both fakes
// have, by case ID.
var ModernCases = map[string]string{
	"input-required":      "2026-07-28: offers ask, ask-stateless and echo; ask asks for an input per capability the call declares, with a requestState, ask-stateless without one; a retry with every answer and the state sent back exactly gets the result, another -32602",
	"input-undeclared":    "2026-07-28: offers ask and echo; ask asks for an input of a capability or mode the call does not declare (sampling, roots, elicitation, URL elicitation or sampling with tools)",
	"listen":              "2026-07-28: declares tools.listChanged; subscriptions/listen is acknowledged (over HTTP in the first event of its SSE stream) with toolsListChanged when asked, then held open",
	"listen-ack-short":    "2026-07-28: declares tools.listChanged; subscriptions/listen is acknowledged (over HTTP in the first event of its SSE stream) honouring nothing of what was asked, then held open",
	"result-type-unknown": "2026-07-28: offers strange and echo; strange's result has a resultType no client knows",
}
