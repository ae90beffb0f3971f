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
	// EnvEra is the protocol era the adapter's client is to speak: "legacy"
	// (the initialize handshake of 2025-03-26 … 2025-11-25) or "modern"
	// (2026-07-28: server/discover, _meta on every request). Unset, the
	// client makes its own choice (the reference probes with server/discover
	// and falls back to initialize). An adapter whose library cannot be told
	// ignores it.
	EnvEra = "MCPCONFORM_ERA"
	// EnvFixtures is the path of a fixtures file (YAML or JSON) that gives
	// the arguments of named tools; tools it does not name get arguments
	// made from their inputSchema.
	EnvFixtures = "MCPCONFORM_FIXTURES"
)

// Eras of the adapter contract (MCPCONFORM_ERA, the config line's eras, the
// connect line's era).
const (
	EraLegacy = "legacy"
	EraModern = "modern"
)

// ConfigEras is the config-line key listing the eras the client claims
// (["legacy","modern"]); a client that declares none claims the legacy era
// only.
const ConfigEras = "eras"

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

// TimeLimits returns the limit keys whose values are durations in
// milliseconds: the timeouts and graces a client declares.
func TimeLimits() []string {
	return []string{LimitCancelGraceMS, LimitStartupMS, LimitShutdownGraceMS, LimitSessionRecoveryMS, LimitControlRequestMS}
}

// Outcomes of an adapter line.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
)

// Line is one JSON line an adapter prints. Exactly one of Config, Connect,
// Listen, List, Close and Tool is set. Only the tool lines are required by
// the contract; the others let checks tell where a failure happened.
type Line struct {
	Config  map[string]json.RawMessage `json:"config,omitempty"`
	Connect *Phase                     `json:"connect,omitempty"`
	// Listen is the outcome of a 2026-07-28 subscriptions/listen the client
	// opened (and found acknowledged as asked, SB-04), when it opens one.
	Listen *Phase `json:"listen,omitempty"`
	List   *Phase `json:"list,omitempty"`
	Close  *Phase `json:"close,omitempty"`

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
	// Era is the era the client chose on connect ("legacy" or "modern"),
	// when it says.
	Era string `json:"era,omitempty"`
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

// Call is the adapter's line for the call of tool, or nil.
func (o Output) Call(tool string) *Call {
	for i := range o.Calls {
		if o.Calls[i].Tool == tool {
			return &o.Calls[i]
		}
	}
	return nil
}

// Output is what an adapter printed, parsed.
type Output struct {
	Config  map[string]json.RawMessage
	Connect *Phase
	Listen  *Phase
	List    *Phase
	Close   *Phase
	Calls   []Call
	// Invalid describes the lines that are not contract lines, by kind and
	// length only ("non-JSON, 812 bytes"); InvalidBytes is their size,
	// line breaks included.
	Invalid      []string
	InvalidBytes int
}

// ParseOutput reads the adapter's stdout. Lines that are not JSON contract
// lines (and tool lines whose outcome is neither ok nor error) are
// collected in Invalid; they do not stop parsing.
func ParseOutput(stdout []byte) Output {
	var out Output
	invalid := func(raw string, format string, args ...any) {
		out.Invalid = append(out.Invalid, fmt.Sprintf(format, args...))
		out.InvalidBytes += len(raw)
	}
	for _, raw := range strings.SplitAfter(string(stdout), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		var l Line
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			invalid(raw, "non-JSON, %d bytes", len(line))
			continue
		}
		switch {
		case l.Config != nil:
			out.Config = l.Config
		case l.Connect != nil:
			out.Connect = l.Connect
		case l.Listen != nil:
			out.Listen = l.Listen
		case l.List != nil:
			out.List = l.List
		case l.Close != nil:
			out.Close = l.Close
		case l.Tool != "" && l.Outcome != OutcomeOK && l.Outcome != OutcomeError:
			invalid(raw, "a tool line with outcome %q (ok or error), %d bytes", l.Outcome, len(line))
		case l.Tool != "":
			out.Calls = append(out.Calls, Call{Tool: l.Tool, Outcome: l.Outcome, Error: l.Error, ElapsedMS: l.ElapsedMS})
		default:
			invalid(raw, "JSON with no contract field, %d bytes", len(line))
		}
	}
	return out
}

// Breach says how the output breaks the adapter contract, or "" when every
// line is a contract line.
func (o Output) Breach() string {
	if len(o.Invalid) == 0 {
		return ""
	}
	return fmt.Sprintf("printed %d bytes that are not contract lines (%d line(s); first line: %s)", o.InvalidBytes, len(o.Invalid), o.Invalid[0])
}

// Failed returns the phase (connect or list) the adapter reported failing,
// or nil: a run without tool lines is explained by it.
func (o Output) Failed() (string, *Phase) {
	switch {
	case o.Connect != nil && o.Connect.Outcome != OutcomeOK:
		return "connect", o.Connect
	case o.List != nil && o.List.Outcome != OutcomeOK:
		return "list", o.List
	}
	return "", nil
}

// Eras returns the eras the client claims in its config line: legacy alone
// when it declares none (or declares them unreadably).
func (o Output) Eras() []string {
	var eras []string
	if raw, ok := o.Config[ConfigEras]; ok && json.Unmarshal(raw, &eras) == nil && len(eras) > 0 {
		return eras
	}
	return []string{EraLegacy}
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
