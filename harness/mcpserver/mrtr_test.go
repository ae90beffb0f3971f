package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// allInputs declares every capability an input request may need.
const allInputs = `{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{}}`

// declaring are the params of a 2026-07-28 request declaring caps (a JSON
// object text), with the fields of extra (members of a JSON object, or "").
func declaring(caps, extra string) string {
	p := fmt.Sprintf(`{"_meta":{%q:%q,%q:%s}`, mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities, caps)
	if extra != "" {
		p += "," + extra
	}
	return p + "}"
}

// retry are the fields a retry adds: inputResponses (a JSON object text)
// and the requestState echoed ("" for none).
func retry(responses, state string) string {
	f := `"inputResponses":` + responses
	if state != "" {
		f += fmt.Sprintf(`,"requestState":%q`, state)
	}
	return f
}

// inputRequired is an InputRequiredResult as the client reads it.
type inputRequired struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState string          `json:"requestState"`
	TTLMs        json.RawMessage `json:"ttlMs"`
}

// wantInputRequired checks that resp asks for exactly the keys, with the
// methods given after each key ("user_name=elicitation/create").
func wantInputRequired(t *testing.T, resp *jsonrpc.Message, want ...string) inputRequired {
	t.Helper()
	wantServerResult(t, resp)
	var r inputRequired
	if err := json.Unmarshal(resp.Result, &r); err != nil || r.ResultType != mcp.ResultTypeInputRequired || r.RequestState == "" || r.TTLMs != nil {
		t.Fatalf("result %s, want an InputRequiredResult with a requestState and no cache hints (%v)", resp.Result, err)
	}
	var got []string
	for key, req := range r.InputRequests {
		got = append(got, key+"="+req.Method)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("inputRequests %v, want %v", got, want)
	}
	return r
}

// Answers an input request gets.
const (
	aliceAnswer = `{"action":"accept","content":{"name":"Alice"}}`
	modelAnswer = `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}`
	rootsAnswer = `{"roots":[{"uri":"file:///r","name":"R"}]}`
)

func TestServerInputRequiredRoundTrip(t *testing.T) {
	p := newPeer(t, "")
	call := `"name":"test_input_required_result_elicitation","arguments":{}`
	r1 := wantInputRequired(t, p.call("tools/call", declaring(allInputs, call)), "user_name=elicitation/create")
	if !strings.Contains(string(r1.InputRequests["user_name"].Params), `"requestedSchema"`) {
		t.Errorf("params %s", r1.InputRequests["user_name"].Params)
	}
	// The server sent the client nothing but the response (JR-17).
	if sent := p.drain(); len(sent) != 1 {
		t.Errorf("sent %v", methods(sent))
	}
	resp := p.call("tools/call", declaring(allInputs, call+","+retry(`{"user_name":`+aliceAnswer+`}`, r1.RequestState)))
	wantServerResult(t, resp, `"resultType":"complete"`, "Hello, Alice!")
}

func TestServerInputRequiredMultiRound(t *testing.T) {
	p := newPeer(t, "")
	call := `"name":"test_input_required_result_multi_round","arguments":{}`
	r1 := wantInputRequired(t, p.call("tools/call", declaring(allInputs, call)), "step1=elicitation/create")
	r2 := wantInputRequired(t, p.call("tools/call", declaring(allInputs, call+","+retry(`{"step1":`+aliceAnswer+`}`, r1.RequestState))), "step2=elicitation/create")
	if r2.RequestState == r1.RequestState {
		t.Error("round 2 kept round 1's requestState")
	}
	// Round 3 brings step2 only: the state carries step1.
	resp := p.call("tools/call", declaring(allInputs, call+","+retry(`{"step2":{"action":"accept","content":{"color":"blue"}}}`, r2.RequestState)))
	wantServerResult(t, resp, "Alice likes blue.")
}

func TestServerInputRequiredManyAtOnce(t *testing.T) {
	p := newPeer(t, "")
	call := `"name":"test_input_required_result_multiple_inputs","arguments":{}`
	r1 := wantInputRequired(t, p.call("tools/call", declaring(allInputs, call)),
		"user_name=elicitation/create", "greeting=sampling/createMessage", "client_roots=roots/list")
	answers := fmt.Sprintf(`{"user_name":%s,"greeting":%s,"client_roots":%s}`, aliceAnswer, modelAnswer, rootsAnswer)
	wantServerResult(t, p.call("tools/call", declaring(allInputs, call+","+retry(answers, r1.RequestState))), "Paris, Alice", "file:///r")
}

func TestServerInputRequiredPromptAndResource(t *testing.T) {
	p := newPeerWith(t, Options{PageSize: 100})
	wantServerResult(t, p.call("prompts/list", declaring("{}", "")), inputPrompt.Name)
	get := fmt.Sprintf(`"name":%q`, inputPrompt.Name)
	r := wantInputRequired(t, p.call("prompts/get", declaring(allInputs, get)), "user_context=elicitation/create")
	resp := p.call("prompts/get", declaring(allInputs, get+","+retry(`{"user_context":{"action":"accept","content":{"context":"tests"}}}`, r.RequestState)))
	wantServerResult(t, resp, `"messages"`, "context: tests")

	wantServerResult(t, p.call("resources/list", declaring("{}", "")), rootsResource.URI)
	read := fmt.Sprintf(`"uri":%q`, rootsResource.URI)
	r = wantInputRequired(t, p.call("resources/read", declaring(allInputs, read)), "client_roots=roots/list")
	resp = p.call("resources/read", declaring(allInputs, read+","+retry(`{"client_roots":`+rootsAnswer+`}`, r.RequestState)))
	wantServerResult(t, resp, `"contents"`, "file:///r", `"ttlMs"`)
}

func TestServerInputRequiredOnlyWhatIsDeclared(t *testing.T) {
	p := newPeer(t, "")
	call := `"name":"test_input_required_result_capabilities","arguments":{}`
	wantInputRequired(t, p.call("tools/call", declaring(`{"sampling":{}}`, call)), "capital_question=sampling/createMessage")
	wantInputRequired(t, p.call("tools/call", declaring(allInputs, call)), "capital_question=sampling/createMessage", "user_name=elicitation/create")
	// Nothing declared: it needs sampling (JR-49, MR-04).
	resp := p.call("tools/call", declaring("{}", call))
	wantServerError(t, resp, jsonrpc.CodeMissingClientCapability)
	if !strings.Contains(string(resp.Error.Data), `"requiredCapabilities":{"sampling":{}}`) {
		t.Errorf("data %s", resp.Error.Data)
	}
	// A tool needing three inputs, one declared: -32021 names the others.
	resp = p.call("tools/call", declaring(`{"sampling":{}}`, `"name":"test_input_required_result_multiple_inputs"`))
	wantServerError(t, resp, jsonrpc.CodeMissingClientCapability)
	if !strings.Contains(string(resp.Error.Data), `{"elicitation":{},"roots":{}}`) {
		t.Errorf("data %s", resp.Error.Data)
	}
	// Elicitation in URL mode needs elicitation.url.
	resp = p.call("tools/call", declaring(`{"elicitation":{"form":{}}}`, `"name":"elicit_url","arguments":{"url":"https://example.com"}`))
	wantServerError(t, resp, jsonrpc.CodeMissingClientCapability)
	if !strings.Contains(string(resp.Error.Data), `{"elicitation":{"url":{}}}`) {
		t.Errorf("data %s", resp.Error.Data)
	}
}

// stateFor is the requestState of tool's first round.
func stateFor(t *testing.T, p *peer, tool, args string) string {
	t.Helper()
	resp := p.call("tools/call", declaring(allInputs, fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args)))
	var r inputRequired
	_ = json.Unmarshal(resp.Result, &r)
	if r.RequestState == "" {
		t.Fatalf("%s answered %s, want a requestState", tool, resp.Result)
	}
	return r.RequestState
}

func TestServerRequestStateVerified(t *testing.T) {
	p := newPeer(t, "")
	confirm := `"name":"test_input_required_result_request_state","arguments":{}`
	answer := `{"confirm":{"action":"accept","content":{"ok":true}}}`
	state := stateFor(t, p, "test_input_required_result_request_state", "{}")
	wantServerResult(t, p.call("tools/call", declaring(allInputs, confirm+","+retry(answer, state))), "state-ok")
	for name, bad := range map[string]string{
		"altered":        state + "-TAMPERED",
		"forged":         "e30." + strings.Split(state, ".")[1],
		"another tool's": stateFor(t, p, "test_input_required_result_elicitation", "{}"),
		"not split":      "opaque",
	} {
		resp := p.call("tools/call", declaring(allInputs, confirm+","+retry(answer, bad)))
		if resp.Kind() != jsonrpc.KindError || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(resp.Error.Message, "requestState") {
			t.Errorf("%s state: got %s %+v, want -32602 about requestState", name, resp.Kind(), resp.Error)
		}
	}
	// Bound to the arguments too.
	state = stateFor(t, p, "test_sampling", `{"prompt":"x"}`)
	resp := p.call("tools/call", declaring(allInputs, `"name":"test_sampling","arguments":{"prompt":"y"},`+retry(`{"sampling-1":`+modelAnswer+`}`, state)))
	wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	if !strings.Contains(resp.Error.Message, "other arguments") {
		t.Errorf("message %q", resp.Error.Message)
	}
	// The same arguments in another order are the same arguments.
	state = stateFor(t, p, "elicit_url", `{"url":"https://example.com","message":"m"}`)
	again := `"name":"elicit_url","arguments":{"message":"m","url":"https://example.com"},`
	wantServerResult(t, p.call("tools/call", declaring(allInputs, again+retry(`{"elicitation-1":{"action":"accept"}}`, state))), `"resultType":"complete"`)
	resp = p.call("tools/call", declaring(allInputs, again+`"requestState":7`))
	wantServerError(t, resp, jsonrpc.CodeInvalidParams)
}

func TestServerRequestStateExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Minute
		p := newPeerWith(t, Options{RequestStateTTL: ttl})
		call := `"name":"test_input_required_result_elicitation","arguments":{}`
		state := stateFor(t, p, "test_input_required_result_elicitation", "{}")
		time.Sleep(ttl - time.Second)
		wantServerResult(t, p.call("tools/call", declaring(allInputs, call+","+retry(`{"user_name":`+aliceAnswer+`}`, state))), "Alice")
		time.Sleep(2 * time.Second)
		resp := p.call("tools/call", declaring(allInputs, call+","+retry(`{"user_name":`+aliceAnswer+`}`, state)))
		wantServerError(t, resp, jsonrpc.CodeInvalidParams)
		if !strings.Contains(resp.Error.Message, "expired") {
			t.Errorf("message %q", resp.Error.Message)
		}
	})
}

func TestServerInputResponsesValidated(t *testing.T) {
	p := newPeer(t, "")
	call := `"name":"test_input_required_result_elicitation","arguments":{}`
	for _, responses := range []string{
		`null`, `[]`, `{"user_name":12345}`, `{"user_name":{"action":"maybe"}}`, `{"user_name":{"action":"accept","content":"Alice"}}`,
	} {
		resp := p.call("tools/call", declaring(allInputs, call+","+retry(responses, "")))
		wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	}
	resp := p.call("tools/call", declaring(allInputs, `"name":"test_input_required_result_sampling",`+retry(`{"capital_question":{"role":"assistant"}}`, "")))
	wantServerError(t, resp, jsonrpc.CodeInvalidParams)
	if !strings.Contains(resp.Error.Message, "content, model") {
		t.Errorf("message %q", resp.Error.Message)
	}
	// Unknown extra answers are ignored; a missing one is asked again (MR-07).
	extra := `{"user_name":` + aliceAnswer + `,"unknown_extra_key":{"action":"accept"},"another":42}`
	wantServerResult(t, p.call("tools/call", declaring(allInputs, call+","+retry(extra, ""))), "Hello, Alice!")
	wantInputRequired(t, p.call("tools/call", declaring(allInputs, call+","+retry(`{"wrong_key":`+aliceAnswer+`}`, ""))), "user_name=elicitation/create")
	// A decline is the user's answer.
	wantServerResult(t, p.call("tools/call", declaring(allInputs, call+","+retry(`{"user_name":{"action":"decline"}}`, ""))), "decline")
}

func TestServerInputRequiredOnlyOnItsMethods(t *testing.T) {
	p := newPeer(t, "")
	for _, method := range []string{mcp.MethodDiscover, "tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		wantServerResult(t, p.call(method, declaring(allInputs, retry(`{"x":`+rootsAnswer+`}`, ""))), `"resultType":"complete"`)
	}
}

func TestServerLegacyHasNoInputTools(t *testing.T) {
	p := newPeerWith(t, Options{PageSize: 100})
	p.initialize(allInputs)
	for method, name := range map[string]string{"tools/list": "test_input_required_result_", "prompts/list": inputPrompt.Name, "resources/list": rootsResource.URI} {
		if resp := p.call(method, `{}`); strings.Contains(string(resp.Result), name) {
			t.Errorf("legacy %s lists %s: %s", method, name, resp.Result)
		}
	}
	wantServerError(t, p.tool("test_input_required_result_elicitation", "{}"), jsonrpc.CodeInvalidParams)
}

// inputRequestsOf decodes a result's inputRequests as the object MR-03
// makes them; ok is false for anything else.
func inputRequestsOf(resp *jsonrpc.Message) (keys []string, ok bool) {
	var r struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	if resp.Kind() != jsonrpc.KindResult || json.Unmarshal(resp.Result, &r) != nil || len(r.InputRequests) == 0 {
		return nil, false
	}
	return slices.Sorted(maps.Keys(r.InputRequests)), true
}

// elicitationRetry observes what the elicitation tool answers a retry
// bringing responses and no requestState.
func elicitationRetry(t *testing.T, m mutant.Name, responses string) *jsonrpc.Message {
	return newPeer(t, m).call("tools/call", declaring(allInputs, `"name":"test_input_required_result_elicitation",`+retry(responses, "")))
}

func init() {
	serverRuleOf[mutant.InputRequestsAsList] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("tools/call", declaring(allInputs, `"name":"test_input_required_result_elicitation"`))
		_, ok := inputRequestsOf(resp)
		return !ok, string(resp.Result)
	}
	serverRuleOf[mutant.InputRequiredOnList] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("tools/list", declaring(allInputs, ""))
		return strings.Contains(string(resp.Result), `"resultType":"input_required"`), string(resp.Result)
	}
	serverRuleOf[mutant.InputRequestUndeclared] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("tools/call", declaring("{}", `"name":"test_sampling","arguments":{"prompt":"x"}`))
		_, asked := inputRequestsOf(resp)
		return asked, fmt.Sprint(resp.Error, string(resp.Result))
	}
	serverRuleOf[mutant.RequestStateUnverified] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		state := stateFor(t, p, "test_input_required_result_elicitation", "{}")
		resp := p.call("tools/call", declaring(allInputs, `"name":"test_input_required_result_elicitation",`+retry(`{"user_name":`+aliceAnswer+`}`, state+"-TAMPERED")))
		return resp.Kind() != jsonrpc.KindError, string(resp.Result)
	}
	serverRuleOf[mutant.RequestStateUnbound] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		state := stateFor(t, p, "test_input_required_result_request_state", "{}")
		resp := p.call("tools/call", declaring(allInputs, `"name":"test_input_required_result_elicitation",`+retry(`{"user_name":`+aliceAnswer+`}`, state)))
		return resp.Kind() != jsonrpc.KindError, string(resp.Result)
	}
	serverRuleOf[mutant.RequestStateRejected] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		state := stateFor(t, p, "test_input_required_result_elicitation", "{}")
		resp := p.call("tools/call", declaring(allInputs, `"name":"test_input_required_result_elicitation",`+retry(`{"user_name":`+aliceAnswer+`}`, state)))
		return resp.Kind() == jsonrpc.KindError, fmt.Sprint(resp.Error)
	}
	serverRuleOf[mutant.MissingInputError] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := elicitationRetry(t, m, `{"wrong_key":`+aliceAnswer+`}`)
		return resp.Kind() == jsonrpc.KindError, fmt.Sprint(resp.Error)
	}
	serverRuleOf[mutant.ExtraInputResponseRejected] = func(t *testing.T, m mutant.Name) (bool, string) {
		resp := elicitationRetry(t, m, `{"user_name":`+aliceAnswer+`,"unknown_extra_key":{"action":"accept"}}`)
		return resp.Kind() == jsonrpc.KindError, fmt.Sprint(resp.Error)
	}
}
