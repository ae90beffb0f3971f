package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The fixed answers of the reference client to a server's sampling and roots
// requests.
const (
	SampleText  = "mcpconform reference sample"
	SampleModel = "mcpconform-reference"
	RootURI     = "file:///"
	RootName    = "mcpconform"
)

// satisfy answers every input request of an InputRequiredResult (MR-06) and
// returns the members of the retry: inputResponses, and requestState exactly
// as the server sent it (none when it sent none). A request the client
// cannot answer (a capability or mode it did not declare) fails the call:
// nothing is made up for it (MR-04, EL-02).
func (s *Session) satisfy(ctx context.Context, method string, ir *inputRequired) (map[string]any, error) {
	keys := make([]string, 0, len(ir.InputRequests))
	for k := range ir.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	responses := make(map[string]any, len(keys))
	for _, k := range keys {
		req := ir.InputRequests[k]
		res, err := s.inputResponse(req.Method, req.Params)
		if err != nil {
			return nil, failure.New(failure.ErrProtocol, method, fmt.Sprintf("input request %q: %v", k, err))
		}
		responses[k] = res
		s.answerInputAsResponse(k, res)
	}
	if ctx.Err() != nil {
		return nil, failure.New(failure.ErrCancelled, method, "the caller gave up before the retry")
	}
	extra := map[string]any{"inputResponses": responses}
	if len(ir.RequestState) > 0 {
		state := ir.RequestState
		if s.opts.Mutant == mutant.MRTRStateAltered {
			state = alteredState(state)
		}
		extra["requestState"] = state
	}
	return extra, nil
}

// alteredState is mutant MRTRStateAltered's requestState: the string without
// its last character.
func alteredState(raw json.RawMessage) json.RawMessage {
	var st string
	if json.Unmarshal(raw, &st) != nil || st == "" {
		return raw
	}
	b, _ := json.Marshal(st[:len(st)-1])
	return b
}

// inputResponse answers one input request: with the answer the client was
// given for it (fixedAnswer), else elicitation in form mode with the form's
// defaults (SEP-1034), sampling and roots with fixed values.
func (s *Session) inputResponse(method string, params json.RawMessage) (any, error) {
	if res, rpcErr, ok := s.fixedAnswer(method, params); ok {
		if rpcErr != nil {
			return nil, rpcErr
		}
		return res, nil
	}
	undeclared := s.opts.Mutant == mutant.MRTRUndeclaredInput
	switch method {
	case "elicitation/create":
		res, err := elicitResult(params)
		if err != nil && undeclared {
			return map[string]any{"action": "accept"}, nil
		}
		return res, err
	case "sampling/createMessage":
		var p struct {
			Tools      json.RawMessage `json:"tools"`
			ToolChoice json.RawMessage `json:"toolChoice"`
		}
		_ = json.Unmarshal(params, &p) // unreadable params: a plain sample
		if (p.Tools != nil || p.ToolChoice != nil) && !undeclared {
			return nil, fmt.Errorf("sampling with tools needs the sampling.tools capability, which this client does not declare (SM-07)")
		}
		return map[string]any{
			"role":       "assistant",
			"content":    map[string]any{"type": "text", "text": SampleText},
			"model":      SampleModel,
			"stopReason": "endTurn",
		}, nil
	case "roots/list":
		return map[string]any{"roots": []any{map[string]any{"uri": RootURI, "name": RootName}}}, nil
	}
	if undeclared {
		return map[string]any{}, nil
	}
	return nil, fmt.Errorf("it asks %q, which is no input request this client declared a capability for (MR-04)", method)
}

// elicitResult accepts a form-mode elicitation with its schema's defaults
// applied (EL-06, SEP-1034); a URL-mode one was not declared (EL-02).
func elicitResult(params json.RawMessage) (map[string]any, error) {
	var p struct {
		Mode            string          `json:"mode"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("the elicitation params do not decode: %w", err)
	}
	if p.Mode != "" && p.Mode != "form" {
		return nil, fmt.Errorf("elicitation mode %q was not declared; this client declares form mode only (EL-02)", p.Mode)
	}
	return map[string]any{"action": "accept", "content": instance.Form(p.RequestedSchema)}, nil
}
