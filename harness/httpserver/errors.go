package httpserver

import (
	"encoding/json"
	"net/http"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// codeServerError is the implementation-defined JSON-RPC code of refusals
// that concern the HTTP request rather than its body (Origin, Host, session,
// method, size).
const codeServerError = -32000

// idlessError is a JSON-RPC error response without id, the body HT-04 and
// HT-16 allow on an HTTP error.
type idlessError struct {
	JSONRPC string        `json:"jsonrpc"`
	Error   jsonrpc.Error `json:"error"`
}

// refuse answers an HTTP error status with a JSON-RPC error body without id.
func refuse(w http.ResponseWriter, status int, code int64, message string) {
	body, _ := json.Marshal(idlessError{JSONRPC: "2.0", Error: jsonrpc.Error{Code: code, Message: message}})
	writeJSON(w, status, body)
}

// refuseBody answers a POST body the server cannot take (unparseable, not a
// valid message, a batch the version forbids) with an HTTP error status and
// a JSON-RPC error with a null id, since the request's id is unknown (HT-16,
// JR-20, JR-21, JR-37).
func (s *Server) refuseBody(w http.ResponseWriter, status int, code int64, message string) {
	if s.cfg.Mutant == mutant.RefusedBodyGets200 {
		status = http.StatusOK
	}
	body, _ := jsonrpc.Encode(jsonrpc.NewError(jsonrpc.ID{}, code, message))
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
