package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// SamplingMessage is one message of a sampling request (SM-02).
type SamplingMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// CreateMessageParams are the params of sampling/createMessage (SM-02).
type CreateMessageParams struct {
	Messages     []SamplingMessage `json:"messages"`
	MaxTokens    int               `json:"maxTokens"`
	SystemPrompt string            `json:"systemPrompt,omitempty"`
}

// CreateMessageResult is the client's sampling result (SM-02).
type CreateMessageResult struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}

// Sample asks the client's model for a message with sampling/createMessage
// and waits for the result (CX-05). It fails with ErrNotDeclared when the
// client did not declare sampling, ErrReverseTimeout, or the client's
// JSON-RPC error (a user's refusal is code -1, JR-27). In the 2026-07-28
// era the request asks for it in its InputRequiredResult instead, and
// Sample fails with ErrInputRequired until the client answers (MR-01).
func (rc *RequestContext) Sample(p CreateMessageParams) (*CreateMessageResult, error) {
	return rc.sampleAs("", p)
}

// sampleAs is Sample, with the inputRequests key to ask under in the
// 2026-07-28 era ("" for a numbered one).
func (rc *RequestContext) sampleAs(key string, p CreateMessageParams) (*CreateMessageResult, error) {
	declared := rc.sess.capabilities().sampling || rc.srv.opts.Mutant == mutant.SamplingWithoutCapability
	var res CreateMessageResult
	if err := rc.clientInput(key, "sampling/createMessage", declared, rc.samplingAsSent(p), &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ElicitParams are the params of elicitation/create (EL-03): Mode "form"
// (or empty) with RequestedSchema, a flat object of primitive properties
// (EL-05) and, from 2025-11-25, arrays of enum values (multiple choice), or
// Mode "url" with URL and ElicitationID (2025-11-25).
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// ElicitResult is the client's answer (EL-07): Action is accept, decline or
// cancel; Content holds the form's values on a form-mode accept.
type ElicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

// Elicit asks the user through the client with elicitation/create (CX-06).
// It is sent only in a mode the client declared (EL-01, EL-02, CX-08),
// otherwise it fails with ErrNotDeclared. A decline or cancel returns the
// result together with ErrDeclined or ErrDismissed, so the handler can tell
// them from an accept; an action that is none of the three is an error.
// In the 2026-07-28 era it is asked as Sample is.
func (rc *RequestContext) Elicit(p ElicitParams) (*ElicitResult, error) { return rc.elicitAs("", p) }

// elicitAs is Elicit, with the inputRequests key to ask under in the
// 2026-07-28 era ("" for a numbered one).
func (rc *RequestContext) elicitAs(key string, p ElicitParams) (*ElicitResult, error) {
	caps := rc.sess.capabilities()
	declared := caps.elicitForm
	if p.Mode == "url" {
		declared = caps.elicitURL
	}
	declared = declared || rc.srv.opts.Mutant == mutant.ElicitationWithoutCapability ||
		p.Mode == "url" && caps.elicitForm && rc.srv.opts.Mutant == mutant.ElicitModeUndeclared
	var res ElicitResult
	if err := rc.clientInput(key, "elicitation/create", declared, rc.elicitationAsSent(p), &res); err != nil {
		return nil, err
	}
	if (res.Action == "decline" || res.Action == "cancel") && rc.srv.opts.Mutant == mutant.ElicitDeclineDropsCall {
		rc.dropped.Store(true)
	}
	switch res.Action {
	case "accept":
		return &res, nil
	case "decline":
		return &res, ErrDeclined
	case "cancel":
		return &res, ErrDismissed
	}
	return nil, fmt.Errorf("elicitation/create: the client answered action %q; want accept, decline or cancel", res.Action)
}

// Root is one root the client shares (CX-07, RT-02).
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// Roots asks the client for its roots with roots/list (CX-07); it fails
// with ErrNotDeclared when the client did not declare roots (RT-07, CX-08).
// In the 2026-07-28 era it is asked as Sample is.
func (rc *RequestContext) Roots() ([]Root, error) { return rc.rootsAs("") }

// rootsAs is Roots, with the inputRequests key to ask under in the
// 2026-07-28 era ("" for a numbered one).
func (rc *RequestContext) rootsAs(key string) ([]Root, error) {
	declared := rc.sess.capabilities().roots || rc.srv.opts.Mutant == mutant.RootsWithoutCapability
	var res rootsResult
	if err := rc.clientInput(key, "roots/list", declared, nil, &res); err != nil {
		return nil, err
	}
	return res.Roots, nil
}
