package fuzz

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Invariant names one property the executor checks after every step. The
// names are public: corpus files and reports carry them.
type Invariant string

// The invariants, with the rule each keeps.
const (
	// Alive: the server process lives (stdio) or the endpoint still
	// answers HTTP: a server ends on stdin EOF or a signal, never on input.
	Alive Invariant = "alive"
	// OneResponse: every request gets exactly one response with its id, a
	// cancelled one at most one, and no response names an id that was
	// never sent, nor answers a notification (JR-07, JR-14, CN-07).
	OneResponse Invariant = "one-response"
	// StdoutJSON: the server writes nothing to stdout that is not a
	// JSON-RPC message (ST-03).
	StdoutJSON Invariant = "stdout-json"
	// AnswersPing: after any frame the server still answers a ping within
	// the timeout (PG-02; a wedged server breaks it).
	AnswersPing Invariant = "answers-ping"
	// ErrorReply: a reply to an unreadable frame is an error object with
	// the code the negotiated version says (JR-20, JR-21; SHOULD, so a
	// break is a warning, not a finding).
	ErrorReply Invariant = "error-reply"
	// MaxRSS: the resident memory of the server's process group stays
	// under --max-rss (stdio only).
	MaxRSS Invariant = "max-rss"
	// NoLeftovers: no process the server started outlives its teardown
	// (stdin closed, SIGTERM, SIGKILL to its group): a child in a session
	// of its own (setsid) or a daemon is found by the reaper's mark, which
	// it inherits (stdio only, where /proc is).
	NoLeftovers Invariant = "no-leftovers"
	// SchemaValid: every message the server sends, once a version is
	// negotiated, validates against that version's published JSON Schema
	// (JR-01): a result by the method of the request it answers.
	SchemaValid Invariant = "schema-valid"
	// OutputSchema: a successful call of a tool whose outputSchema the
	// session's tools/list showed returns structuredContent that conforms
	// to it (TL-12, from 2025-06-18 on).
	OutputSchema Invariant = "output-schema"
	// NoResponseAfterCancel: a call of a slow tool that the server showed
	// running (its progress) gets no response once its cancel went out,
	// until the answers to the requests after the cancel are in (CN-04,
	// SHOULD; CX-04 under --profile hardened); see cancel.go.
	NoResponseAfterCancel Invariant = "no-response-after-cancel"
)

// invariants lists every invariant with its level and source: a MUST break
// is a finding (exit status 1), a SHOULD break a warning; a hardened
// invariant (no rule of the specification: a bound of the harness) is
// judged only under --profile hardened, or, where a spec rule asks the
// same at a lower level (Spec), at that level under --profile spec. A crash
// or a wedge on input is the specification's, as the harness notes of the
// requirements say ("a crash or hang is a clear failure").
var invariants = []struct {
	Name     Invariant
	Level    string
	Hardened bool
	Rules    []string
	Text     string
	// Spec is a hardened invariant's level under --profile spec: ""
	// when it is not judged there.
	Spec string
}{
	{Alive, "MUST", false, nil, "the server process lives and its endpoint answers", ""},
	{OneResponse, "MUST", false, []string{"JR-07", "JR-14"}, "every request gets exactly one response with its id (at most one once cancelled), and no response names an id never sent", ""},
	{StdoutJSON, "MUST", false, []string{"ST-03"}, "stdout carries nothing but JSON-RPC messages", ""},
	{AnswersPing, "MUST", false, []string{"PG-02"}, "the server answers a ping after any frame, within the timeout", ""},
	{ErrorReply, "SHOULD", false, []string{"JR-20", "JR-21"}, "unreadable frames are answered, when at all, with an error of the right code and a null id", ""},
	{SchemaValid, "MUST", false, []string{"JR-01"}, "every message the server sends validates against the JSON Schema of the negotiated version", ""},
	{OutputSchema, "MUST", false, []string{"TL-12"}, "a tool that declares an outputSchema answers a successful call with structuredContent that conforms to it", ""},
	{MaxRSS, "MUST", true, nil, "the resident memory of the server's process group stays under --max-rss", ""},
	{NoLeftovers, "MUST", true, nil, "no process of the server's tree outlives its teardown (stdin closed, SIGTERM and SIGKILL to its process group)", ""},
	{NoResponseAfterCancel, "MUST", true, []string{"CN-04", "CX-04"}, "a call of a slow tool the server showed running gets no response once its cancel went out (a warning under --profile spec, CN-04 being a SHOULD)", "SHOULD"},
}

// Hardened reports whether the invariant is a hardened one, judged only
// under --profile hardened.
func (i Invariant) Hardened() bool {
	for _, inv := range invariants {
		if inv.Name == i {
			return inv.Hardened
		}
	}
	return false
}

// ParseInvariant reads an invariant's name.
func ParseInvariant(s string) (Invariant, error) {
	for _, inv := range invariants {
		if string(inv.Name) == s {
			return inv.Name, nil
		}
	}
	return "", fmt.Errorf("unknown invariant %q; invariants: %s", s, invariantList())
}

func invariantList() string {
	names := make([]string, len(invariants))
	for i, inv := range invariants {
		names[i] = string(inv.Name)
	}
	return strings.Join(names, ", ")
}

// Level is the invariant's level: "MUST" or "SHOULD".
func (i Invariant) Level() string {
	for _, inv := range invariants {
		if inv.Name == i {
			return inv.Level
		}
	}
	return ""
}

// Text says what the invariant holds.
func (i Invariant) Text() string {
	for _, inv := range invariants {
		if inv.Name == i {
			return inv.Text
		}
	}
	return ""
}

// Violation is an invariant broken at one step.
type Violation struct {
	Invariant Invariant
	// Kind tells breaks of one invariant apart ("missing", "duplicate",
	// …): shrinking keeps both, so a case shrinks to the break it showed.
	Kind string
	// Step is the index of the frame after which it broke; len(frames)
	// for the closing probe.
	Step int
	// Detail says what was seen, for the report.
	Detail string
	// Frames, on a warning, are the frames sent up to it (a finding's are
	// its shrunk Case).
	Frames []Frame
	// Transcript is the wire of a run of those frames, recorded once the
	// search is over: what the server answered.
	Transcript []transcript.Entry
	// Warning says it is a SHOULD break: a SHOULD invariant's, or a
	// hardened one's under --profile spec.
	Warning bool
}

// Level is the level it broke: "SHOULD" for a warning, else its
// invariant's.
func (v *Violation) Level() string {
	if v.Warning {
		return "SHOULD"
	}
	return v.Invariant.Level()
}

func (v *Violation) Error() string {
	if v.Invariant == NoLeftovers {
		return fmt.Sprintf("%s broken at the teardown: %s", v.Invariant, v.Detail)
	}
	return fmt.Sprintf("%s broken after frame %d: %s", v.Invariant, v.Step+1, v.Detail)
}

// describe renders bytes for a message without quoting arbitrary content:
// a JSON-RPC message by its kind, method and id, anything else by its class
// and length.
func describe(b []byte) string {
	if m, err := jsonrpc.Decode(b); err == nil {
		switch m.Kind() {
		case jsonrpc.KindRequest:
			return fmt.Sprintf("%s (id %s)", m.Method, m.ID)
		case jsonrpc.KindNotification:
			return m.Method
		case jsonrpc.KindError:
			return fmt.Sprintf("error %d (id %s)", m.Error.Code, m.ID)
		}
		return fmt.Sprintf("result (id %s)", m.ID)
	}
	return fmt.Sprintf("%s frame of %d bytes", jsonrpc.ClassifyLine(b), len(b))
}

// Invariants lists every invariant, in order.
func Invariants() []Invariant {
	out := make([]Invariant, len(invariants))
	for i, inv := range invariants {
		out[i] = inv.Name
	}
	return out
}

// Rules are the rule IDs the invariant keeps.
func Rules(i Invariant) []string {
	for _, inv := range invariants {
		if inv.Name == i {
			return append([]string{}, inv.Rules...)
		}
	}
	return nil
}
