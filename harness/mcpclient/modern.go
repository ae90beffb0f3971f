package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The resultType values of 2026-07-28 (JR-15, JR-16).
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
)

// inputMethods are the requests a server may answer with an
// InputRequiredResult (MR-02).
var inputMethods = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true}

// modernCapabilities are what a 2026-07-28 request declares: form-mode
// elicitation, sampling and roots, each answered only inside an
// InputRequiredResult (SM-13, EL-18, RT-08).
func modernCapabilities() map[string]any {
	return map[string]any{
		"elicitation": map[string]any{"form": map[string]any{}},
		"sampling":    map[string]any{},
		"roots":       map[string]any{},
	}
}

// meta is the _meta every 2026-07-28 request carries: the protocol version,
// the client's capabilities (JR-46) and its clientInfo (JR-48).
func (s *Session) meta(version string) map[string]any {
	m := map[string]any{
		mcp.MetaProtocolVersion:    version,
		mcp.MetaClientCapabilities: s.declared(modernCapabilities()),
		mcp.MetaClientInfo:         clientInfo{Name: s.opts.Name, Version: s.opts.Version},
	}
	if s.opts.Mutant == mutant.ModernNoClientInfo {
		delete(m, mcp.MetaClientInfo)
	}
	return m
}

// modernCall sends a 2026-07-28 request: params with the client's _meta
// merged into theirs, the Mcp-Param-* headers of a tools/call, and, while
// the server answers with an InputRequiredResult, a retry with a new id
// carrying the answers to its input requests and its requestState as it was
// sent (MR-06). A result without resultType is complete; one of a type the
// client does not know is an error (JR-16). A tools/call answered -32020
// is retried once with the headers a fresh tools/list gives, when they
// changed (HT-82).
func (s *Session) modernCall(ctx context.Context, method string, params any) (json.RawMessage, error) {
	base, err := paramsObject(params)
	if err != nil {
		return nil, failure.Wrap(failure.ErrProtocol, method, err)
	}
	headers := s.paramHeaders(method, base)
	extra := s.reusedInput(method)
	var lastID int64
	relisted := false
	for round := 0; ; round++ {
		body := s.withMeta(base, extra)
		var reuse int64
		if s.opts.Mutant == mutant.MRTRSameID {
			reuse = lastID
		}
		raw, id, err := s.roundTrip(ctx, method, body, headers, reuse)
		if err != nil && !relisted {
			var fresh map[string]string
			if fresh, relisted = s.relistedHeaders(ctx, method, base, headers, err); relisted {
				headers = fresh
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		lastID = id
		kind, ir, err := readResult(raw)
		switch {
		case err != nil:
			return nil, failure.Wrap(failure.ErrProtocol, method, err)
		case kind == resultComplete && s.opts.Mutant != mutant.ModernCompleteRefused:
			return raw, nil
		case kind != resultInputRequired && s.opts.Mutant == mutant.ResultTypeUnknownAccepted:
			return raw, nil
		case kind != resultInputRequired:
			return nil, failure.New(failure.ErrProtocol, method, fmt.Sprintf(
				"the result has resultType %q, which this client does not know; it reads complete and input_required only (JR-16)", kind))
		case !inputMethods[method]:
			return nil, failure.New(failure.ErrProtocol, method, "the server answered with an InputRequiredResult, which only tools/call, resources/read and prompts/get may get (MR-02)")
		case round+1 >= s.opts.MaxInputRounds:
			return nil, failure.New(failure.ErrProtocol, method, fmt.Sprintf(
				"the server still asks for input after %d rounds; the client gives up there (Options.MaxInputRounds)", s.opts.MaxInputRounds))
		}
		if extra, err = s.satisfy(ctx, method, ir); err != nil {
			return nil, err
		}
		s.keepInput(extra)
	}
}

// paramsObject is params as a JSON object's members; nil params are {}.
func paramsObject(params any) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if params == nil {
		return out, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("the params do not encode: %w", err)
	}
	if string(b) == "null" {
		return out, nil
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("the params are not a JSON object: %w", err)
	}
	return out, nil
}

// withMeta is base with the client's _meta merged over any _meta of its own
// (progressToken …) and the members of extra (inputResponses, requestState).
func (s *Session) withMeta(base map[string]json.RawMessage, extra map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(extra)+1)
	for k, v := range base {
		out[k] = v
	}
	if s.opts.Mutant != mutant.ModernNoMeta {
		meta := map[string]any{}
		_ = json.Unmarshal(base["_meta"], &meta) // none: only the client's keys
		for k, v := range s.meta(s.version) {
			meta[k] = v
		}
		if s.opts.Mutant == mutant.CapabilitiesDroppedOnRetry && extra["inputResponses"] != nil {
			meta[mcp.MetaClientCapabilities] = map[string]any{}
		}
		out["_meta"] = meta
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// inputRequired is an InputRequiredResult (MR-03).
type inputRequired struct {
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	// RequestState is kept as the JSON string it came as, so that it goes
	// back exactly as sent (MR-06).
	RequestState json.RawMessage `json:"requestState"`
}

// readResult reads a 2026-07-28 result's resultType (complete when absent,
// JR-16) and, for input_required, the InputRequiredResult.
func readResult(raw json.RawMessage) (string, *inputRequired, error) {
	var head struct {
		ResultType *string `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return "", nil, fmt.Errorf("the result is not an object: %w", err)
	}
	if head.ResultType == nil {
		return resultComplete, nil, nil
	}
	if *head.ResultType != resultInputRequired {
		return *head.ResultType, nil, nil
	}
	var ir inputRequired
	if err := json.Unmarshal(raw, &ir); err != nil {
		return "", nil, fmt.Errorf("the InputRequiredResult does not decode: %w", err)
	}
	if len(ir.InputRequests) == 0 && len(ir.RequestState) == 0 {
		return "", nil, fmt.Errorf("the InputRequiredResult has neither inputRequests nor requestState (MR-03)")
	}
	return resultInputRequired, &ir, nil
}

// reusedInput is, under mutant MRTRStateReused, the previous retry's
// inputResponses and requestState for any other request.
func (s *Session) reusedInput(method string) map[string]any {
	if s.opts.Mutant != mutant.MRTRStateReused || method != "tools/call" {
		return nil
	}
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return s.stale
}

// keepInput remembers a retry's fields for mutant MRTRStateReused.
func (s *Session) keepInput(extra map[string]any) {
	if s.opts.Mutant != mutant.MRTRStateReused {
		return
	}
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	s.stale = extra
}
