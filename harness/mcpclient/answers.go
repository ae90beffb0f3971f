package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
)

// The client's fixed answers (Options.Answers, the adapter contract's
// MCPCONFORM_SAMPLING, MCPCONFORM_ELICITATION and MCPCONFORM_ROOTS): each
// answer given declares its capability in either era and answers its
// requests, as server requests in the legacy era and as input requests in
// the 2026-07-28 one.

// CodeUserRejected is the error a user's refusal of a sampling request is
// reported with (SM-06, JR-27).
const CodeUserRejected = -1

// declared is caps with the capabilities of the answers the client was
// given: sampling, elicitation in form and URL mode, roots.
func (s *Session) declared(caps map[string]any) map[string]any {
	a := s.opts.Answers
	if a.Sampling != "" {
		caps["sampling"] = map[string]any{}
		if a.SamplingTools {
			caps["sampling"] = map[string]any{"tools": map[string]any{}}
		}
	}
	if a.Elicitation != "" {
		caps["elicitation"] = map[string]any{"form": map[string]any{}, "url": map[string]any{}}
	}
	if a.Roots != nil {
		caps["roots"] = map[string]any{}
	}
	return caps
}

// fixedAnswer answers a request of method with the answer the client was
// given for it: its result, or the error to reply with (-32602 for a
// sampling request without messages, or one it refuses: samplingRefusal);
// ok is false when it was given none.
func (s *Session) fixedAnswer(method string, params json.RawMessage) (result any, rpcErr *jsonrpc.Error, ok bool) {
	a := s.opts.Answers
	refusal := ""
	if method == "sampling/createMessage" && a.Sampling != "" {
		refusal = s.samplingRefusal(params)
	}
	switch {
	case method == "sampling/createMessage" && a.Sampling != "" && !hasMessages(params) && s.opts.Mutant != mutant.SamplingParamsUnchecked:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling/createMessage needs messages, an array"}, true
	case refusal != "":
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: refusal}, true
	case method == "sampling/createMessage" && a.Sampling == target.SamplingReject:
		return nil, &jsonrpc.Error{Code: CodeUserRejected, Message: "the user rejected the sampling request"}, true
	case method == "sampling/createMessage" && a.Sampling != "":
		var res map[string]any
		_ = json.Unmarshal([]byte(a.Sampling), &res) // checked by target.ReadAnswers
		if s.opts.Mutant == mutant.SamplingNoModel {
			delete(res, "model")
		}
		return res, nil, true
	case method == "elicitation/create" && a.Elicitation != "":
		res, err := s.elicitAnswer(a.Elicitation, params)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}, true
		}
		return res, nil, true
	case method == "roots/list" && a.Roots != nil:
		roots := make([]target.Root, len(a.Roots))
		for i, r := range a.Roots {
			roots[i] = r
			if s.opts.Mutant == mutant.RootsNotFile {
				roots[i].URI = "https://" + strings.TrimPrefix(r.URI, "file://")
			}
		}
		return map[string]any{"roots": roots}, nil, true
	}
	return nil, nil, false
}

// hasMessages reports whether sampling/createMessage params hold the
// messages array the request requires (JR-23).
func hasMessages(params json.RawMessage) bool {
	var p struct {
		Messages []json.RawMessage `json:"messages"`
	}
	return json.Unmarshal(params, &p) == nil && p.Messages != nil
}

// elicitAnswer is the user's action on an elicitation: accept submits a
// form as presented, its schema's defaults filled in (EL-06), and consents
// to a URL without content (EL-07); decline and cancel carry no content.
func (s *Session) elicitAnswer(action string, params json.RawMessage) (map[string]any, error) {
	var p struct {
		Mode            string          `json:"mode"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("the elicitation params do not decode: %w", err)
	}
	if p.Mode == "" && s.version >= "2025-11-25" && s.opts.Mutant == mutant.ElicitationModeRequired {
		return nil, fmt.Errorf("elicitation/create has no mode (form or url)")
	}
	if p.Mode != "" && p.Mode != "form" && p.Mode != "url" {
		return nil, fmt.Errorf("elicitation mode %q is none this client declared (form, url) (EL-02)", p.Mode)
	}
	if action != target.ElicitAccept && s.opts.Mutant == mutant.ElicitationDeclineIgnored {
		action = target.ElicitAccept
	}
	res := map[string]any{"action": action}
	if action == target.ElicitAccept && p.Mode != "url" {
		content := instance.Form(p.RequestedSchema)
		if s.opts.Mutant == mutant.ElicitationNoDefaults {
			content = map[string]any{}
		}
		res["content"] = content
	}
	return res, nil
}

// announceRoots is mutant RootsListChangedUndeclared's
// notifications/roots/list_changed, sent after the handshake by a client
// that declared roots without listChanged.
func (s *Session) announceRoots() {
	if s.opts.Mutant != mutant.RootsListChangedUndeclared || s.opts.Answers.Roots == nil {
		return
	}
	if n, err := jsonrpc.NewNotification("notifications/roots/list_changed", nil); err == nil {
		_ = s.t.Send(n) // a failed send ends the transport; the session learns it from Done
	}
}
