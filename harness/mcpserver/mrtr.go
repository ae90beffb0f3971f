package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Multi round-trip requests (2026-07-28, MR-01 … MR-08). A handler asks the
// client for input the same way in both eras (RequestContext.Sample, Elicit,
// Roots). In the legacy era that sends the client a request and waits. In
// the modern era the server sends no requests (JR-17): the handler runs
// once per try of the request, finds the answers the try brought (its
// inputResponses and those its requestState carries), and what it still
// lacks becomes the request's InputRequiredResult, which asks for all of
// it at once with a requestState carrying the answers so far (MR-01,
// MR-03). The client answers and sends the request again; the handler runs
// again from the start. The server never waits for the retry (MR-08): it
// keeps nothing between tries.

// ErrInputRequired: a 2026-07-28 request lacks an input it asked the
// client for; its answer is an InputRequiredResult asking for it (MR-01).
var ErrInputRequired = errors.New("the client's input is required; the request answers with an InputRequiredResult asking for it")

// round is one try of a 2026-07-28 tools/call, prompts/get or
// resources/read: the answers it brought, and what its handler asked for.
type round struct {
	srv    *Server
	origin origin
	// answers are the client's answers by key: the requestState's, then
	// the try's inputResponses (which win).
	answers map[string]json.RawMessage
	// verified: the try echoed a requestState and it verified (MR-05).
	verified bool
	// responded: the try brought inputResponses.
	responded bool

	mu sync.Mutex
	// asked are the input requests not answered yet, by key (MR-03).
	asked map[string]mcp.InputRequest
	// used are the answers the handler took, which the next requestState
	// carries.
	used map[string]json.RawMessage
	// undeclared are the client capabilities the handler needed that the
	// request did not declare, as requiredCapabilities names them (JR-49).
	undeclared map[string]any
	// invalid is the -32602 of an answer that is not a result of its
	// input request's method (MR-07).
	invalid *jsonrpc.Error
	// counts numbers the unnamed input requests of each method.
	counts map[string]int
}

// roundKey is the context key of a request's round.
type roundKey struct{}

// roundOf is the round of rc's request; nil for a request of another
// method, or of the legacy era.
func roundOf(rc *RequestContext) *round {
	r, _ := rc.ctx.Value(roundKey{}).(*round)
	return r
}

// openRound reads the try of a 2026-07-28 request that may ask for input
// (MR-02: tools/call, prompts/get, resources/read; nil for any other):
// inputResponses must be an object (MR-07), and a requestState must verify
// (MR-05); else -32602. Params a handler cannot read are the handler's to
// refuse.
func (s *Server) openRound(req *jsonrpc.Message, now time.Time) (*round, *jsonrpc.Error) {
	if !slices.Contains(mcp.InputMethods, req.Method) {
		return nil, nil
	}
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		mcp.InputRetryParams
	}
	_ = mcp.DecodeParams(req.Params, &p)
	r := &round{
		srv:        s,
		origin:     originOf(req.Method, p.Name+p.URI, p.Arguments),
		answers:    map[string]json.RawMessage{},
		asked:      map[string]mcp.InputRequest{},
		used:       map[string]json.RawMessage{},
		undeclared: map[string]any{},
		counts:     map[string]int{},
	}
	if p.RequestState != nil {
		carried, verified, rpcErr := s.openState(p.RequestState, r.origin, now)
		if rpcErr != nil {
			return nil, rpcErr
		}
		r.verified = verified
		for k, v := range carried {
			r.answers[k] = v
		}
	}
	if p.InputResponses != nil {
		var responses map[string]json.RawMessage
		if p.InputResponses[0] != '{' || json.Unmarshal(p.InputResponses, &responses) != nil {
			return nil, mcp.InvalidParams(fmt.Sprintf("inputResponses must be an object of the client's answers by inputRequests key, not %s", clipped(p.InputResponses)))
		}
		for k, v := range responses {
			r.answers[k] = v
		}
		r.responded = true
	}
	return r, nil
}

// clientInput gets the client's answer to an input request (method and
// params) into result. In the legacy era it sends the request and waits
// (reverseRequest). In the 2026-07-28 era it takes the answer the request
// brought under key, or else asks for it in the request's
// InputRequiredResult and returns ErrInputRequired (MR-01); key "" names it
// after the method's capability, numbered in the order asked. declared
// says the client declared the capability the method needs: if not,
// nothing is asked (MR-04) and it returns ErrNotDeclared.
func (rc *RequestContext) clientInput(key, method string, declared bool, params, result any) error {
	if !rc.sess.modern {
		return rc.reverseRequest(method, declared, params, result)
	}
	r := roundOf(rc)
	if r == nil {
		return fmt.Errorf("%s: only tools/call, prompts/get and resources/read may ask the client for input (MR-02)", method)
	}
	return r.input(key, method, declared || rc.srv.opts.Mutant == mutant.InputRequestUndeclared, params, result)
}

// input is clientInput's 2026-07-28 half.
func (r *round) input(key, method string, declared bool, params, result any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	capability := mcp.InputCapability[method]
	if key == "" {
		r.counts[method]++
		key = fmt.Sprintf("%s-%d", capability, r.counts[method])
	}
	if !declared {
		r.undeclared[capability] = requiredCapability(params)
		return fmt.Errorf("%s: %w", method, ErrNotDeclared)
	}
	if answer, ok := r.answers[key]; ok {
		if err := decodeAnswer(method, answer, result); err != nil {
			r.invalid = mcp.InvalidParams(fmt.Sprintf("inputResponses[%q] does not answer its %s request: %v; answer with a %s result", key, method, err, method))
			return err
		}
		r.used[key] = answer
		return nil
	}
	if r.responded && r.srv.opts.Mutant == mutant.MissingInputError {
		r.invalid = mcp.InvalidParams(fmt.Sprintf("inputResponses lacks %q", key))
	}
	switch p := params.(type) {
	case nil:
		params = map[string]any{}
	case ElicitParams:
		p.ElicitationID = "" // gone in 2026-07-28 (EL-18): the retry tells the flow ended
		params = p
	}
	r.asked[key] = mcp.InputRequest{Method: method, Params: params}
	return fmt.Errorf("%s: %w", method, ErrInputRequired)
}

// requiredCapability is what requiredCapabilities names for an input
// request's params: elicitation in URL mode needs {"url": {}}, the rest {}.
func requiredCapability(params any) any {
	if p, ok := params.(ElicitParams); ok && p.Mode == "url" {
		return map[string]any{"url": map[string]any{}}
	}
	return map[string]any{}
}

// decodeAnswer decodes the client's answer to an input request of method
// into result and validates it (MR-07): an ElicitResult, a
// CreateMessageResult or a ListRootsResult.
func decodeAnswer(method string, answer json.RawMessage, result any) error {
	if len(answer) == 0 || answer[0] != '{' {
		return fmt.Errorf("it is %s, not an object", clipped(answer))
	}
	if err := json.Unmarshal(answer, result); err != nil {
		return err
	}
	var missing []string
	switch res := result.(type) {
	case *ElicitResult:
		if !slices.Contains([]string{"accept", "decline", "cancel"}, res.Action) {
			return fmt.Errorf("action %q is none of accept, decline, cancel", res.Action)
		}
		if len(res.Content) > 0 && res.Content[0] != '{' {
			return fmt.Errorf("content %s is not an object", clipped(res.Content))
		}
	case *CreateMessageResult:
		for field, v := range map[string]string{"role": res.Role, "model": res.Model, "content": string(res.Content)} {
			if v == "" {
				missing = append(missing, field)
			}
		}
	case *rootsResult:
		if res.Roots == nil {
			missing = append(missing, "roots")
		}
		for i, root := range res.Roots {
			if root.URI == "" {
				missing = append(missing, fmt.Sprintf("roots[%d].uri", i))
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("it lacks %s", strings.Join(missing, ", "))
	}
	return nil
}

// rootsResult is the client's answer to roots/list (RT-02).
type rootsResult struct {
	Roots []Root `json:"roots"`
}

// concludeRound makes the answer of a 2026-07-28 request from what its
// handler returned and what it asked for: -32602 for an answer that does
// not fit its input request (MR-07), -32021 for an input whose capability
// the request did not declare (JR-49, MR-04), an InputRequiredResult for
// the inputs still lacking (MR-01); else what the handler returned. Only
// a request that may ask for input has a round (MR-02).
func (s *Server) concludeRound(rc *RequestContext, r *round, method string, result any, rpcErr *jsonrpc.Error) (any, *jsonrpc.Error) {
	if r == nil {
		if method == "tools/list" && s.opts.Mutant == mutant.InputRequiredOnList && rc.sess.capabilities().roots {
			return mcp.InputRequiredResult{ResultType: mcp.ResultTypeInputRequired, InputRequests: map[string]mcp.InputRequest{
				"roots-1": {Method: "roots/list", Params: map[string]any{}}}}, nil
		}
		return result, rpcErr
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.invalid != nil:
		return nil, r.invalid
	case s.opts.Mutant == mutant.ExtraInputResponseRejected && len(r.answers) > len(r.used):
		return nil, mcp.InvalidParams("inputResponses holds answers to input requests this request did not make")
	case len(r.undeclared) > 0 && s.opts.Mutant != mutant.CapabilityNeededAsResult:
		return nil, missingCapabilities(r.undeclared)
	case len(r.asked) > 0:
		return s.inputRequired(r, time.Now()), nil
	}
	return result, rpcErr
}

// missingCapabilities is the -32021 naming the client capabilities a
// request needs and did not declare (JR-49).
func missingCapabilities(need map[string]any) *jsonrpc.Error {
	names := make([]string, 0, len(need))
	for name := range need {
		names = append(names, name)
	}
	sort.Strings(names)
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": need})
	return &jsonrpc.Error{Code: jsonrpc.CodeMissingClientCapability, Data: data, Message: fmt.Sprintf(
		"handling this request needs the client's %s capability; declare it in _meta %s and send the request again",
		strings.Join(names, " and "), mcp.MetaClientCapabilities)}
}

// inputRequired is the InputRequiredResult asking for what r lacks, with a
// requestState carrying the answers r used (MR-03, MR-05).
func (s *Server) inputRequired(r *round, now time.Time) any {
	state := s.sealState(r.origin, r.used, now)
	if s.opts.Mutant == mutant.InputRequestsAsList {
		var list []map[string]any
		for key, req := range r.asked {
			list = append(list, map[string]any{"key": key, "method": req.Method, "params": req.Params})
		}
		return map[string]any{"resultType": mcp.ResultTypeInputRequired, "inputRequests": list, "requestState": state}
	}
	return mcp.InputRequiredResult{ResultType: mcp.ResultTypeInputRequired, InputRequests: r.asked, RequestState: state}
}

// withRound gives ctx the round of a request.
func withRound(ctx context.Context, r *round) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, roundKey{}, r)
}
