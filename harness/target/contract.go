package target

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Environment variables of the adapter contract v1.
const (
	EnvCase          = "MCPCONFORM_CASE"
	EnvTransport     = "MCPCONFORM_TRANSPORT"
	EnvServerCommand = "MCPCONFORM_SERVER_COMMAND"
	EnvServerURL     = "MCPCONFORM_SERVER_URL"
	EnvCallTimeoutMS = "MCPCONFORM_CALL_TIMEOUT_MS"
	EnvParallel      = "MCPCONFORM_PARALLEL"
	// EnvLimits is a JSON object of limit overrides with the config keys
	// (max_stdout_text_lines, …). An adapter that honours an override echoes
	// the value in its config line; one that does not leaves the check
	// UNIMPLEMENTED.
	EnvLimits = "MCPCONFORM_LIMITS"
	// EnvAuthToken is a bearer token (without "Bearer ") the HTTP client sends
	// as Authorization on every request.
	EnvAuthToken = "MCPCONFORM_AUTH_TOKEN"
	// EnvHeaders is a JSON object of custom headers the HTTP client sends on
	// every request.
	EnvHeaders = "MCPCONFORM_HEADERS"
)

// ExitUnsupported is the adapter's exit status for a transport or feature it lacks.
const ExitUnsupported = 127

// Limit keys an adapter may declare in its config line.
const (
	LimitStdoutTextLines = "max_stdout_text_lines"
	LimitStdoutTextBytes = "max_stdout_text_bytes"
	LimitStderrBytes     = "max_stderr_bytes"
	LimitCancelGraceMS   = "cancel_grace_ms"
	LimitStartupMS       = "startup_timeout_ms"
	LimitShutdownGraceMS = "shutdown_grace_ms"

	LimitMaxConcurrent     = "max_concurrent_requests"
	LimitMaxSSEEventSize   = "max_sse_event_size"
	LimitSessionRecoveryMS = "session_recovery_timeout_ms"
	LimitControlRequestMS  = "control_request_timeout_ms"
	LimitAllowStateless    = "allow_stateless"           // 0 or 1
	LimitReinitOnExpired   = "reinit_on_expired_session" // 0 or 1
)

// Outcomes of an adapter line.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
)

// Line is one JSON line an adapter prints. Exactly one of Config, Connect,
// List, Close and Tool is set. Only the tool lines are required by the
// contract; the others let checks tell where a failure happened.
type Line struct {
	Config  map[string]json.RawMessage `json:"config,omitempty"`
	Connect *Phase                     `json:"connect,omitempty"`
	List    *Phase                     `json:"list,omitempty"`
	Close   *Phase                     `json:"close,omitempty"`

	Tool      string `json:"tool,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	Error     string `json:"error,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms,omitempty"`
}

// Phase is the outcome of the connect or close step.
type Phase struct {
	Outcome   string `json:"outcome"`
	Error     string `json:"error,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// Call is the outcome of one tool call, as the adapter reported it.
type Call struct {
	Tool      string
	Outcome   string
	Error     string
	ElapsedMS int64
}

// OK reports whether the call succeeded.
func (c Call) OK() bool { return c.Outcome == OutcomeOK }

// Output is what an adapter printed, parsed.
type Output struct {
	Config  map[string]json.RawMessage
	Connect *Phase
	List    *Phase
	Close   *Phase
	Calls   []Call
	Invalid []string // lines that are not contract lines (shown by length only)
}

// ParseOutput reads the adapter's stdout. Lines that are not JSON contract
// lines are collected in Invalid; they do not stop parsing.
func ParseOutput(stdout []byte) Output {
	var out Output
	for _, raw := range strings.Split(string(stdout), "\n") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		var l Line
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			out.Invalid = append(out.Invalid, fmt.Sprintf("non-JSON line of %d bytes", len(raw)))
			continue
		}
		switch {
		case l.Config != nil:
			out.Config = l.Config
		case l.Connect != nil:
			out.Connect = l.Connect
		case l.List != nil:
			out.List = l.List
		case l.Close != nil:
			out.Close = l.Close
		case l.Tool != "":
			out.Calls = append(out.Calls, Call{Tool: l.Tool, Outcome: l.Outcome, Error: l.Error, ElapsedMS: l.ElapsedMS})
		default:
			out.Invalid = append(out.Invalid, fmt.Sprintf("JSON line of %d bytes with no contract field", len(raw)))
		}
	}
	return out
}

// Int returns the integer limit key declared in the config line.
func (o Output) Int(key string) (int64, bool) {
	raw, ok := o.Config[key]
	if !ok {
		return 0, false
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, false
	}
	return n, true
}
