package mcp

import "encoding/json"

// Result types of the 2026-07-28 era (JR-15): every result names one.
const (
	ResultTypeComplete      = "complete"
	ResultTypeInputRequired = "input_required"
)

// Multi round-trip requests (2026-07-28, MR-01 … MR-08): instead of sending
// the client requests, a server answers tools/call, prompts/get or
// resources/read with an InputRequiredResult; the client satisfies its
// inputRequests and sends the request again with inputResponses and the
// requestState echoed.

// InputRequiredResult asks the client for input before the request can
// complete (MR-01, MR-03): ResultType is ResultTypeInputRequired, and it
// has InputRequests, RequestState or both.
type InputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

// InputRequest is one entry of inputRequests: a request the client would
// have been sent in the legacy era, without jsonrpc and id (MR-03).
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// InputRetryParams are the params a retried request adds (MR-06): the
// client's answers by inputRequests key, and the requestState echoed.
type InputRetryParams struct {
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
}

// InputCapability names, for each method an input request may have, the
// client capability it needs (MR-03, MR-04).
var InputCapability = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// InputMethods are the methods that may be answered with an
// InputRequiredResult (MR-02).
var InputMethods = []string{"tools/call", "prompts/get", "resources/read"}
