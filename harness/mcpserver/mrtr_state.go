package mcpserver

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The requestState of an InputRequiredResult is attacker-controlled input
// (MR-05): the client echoes it, and anyone may alter it. The reference
// integrity-protects it with an HMAC under a key drawn at random once per
// process, binds it to the request that asked (its method, the tool,
// prompt or resource, and a digest of the arguments) and to a short
// expiry (Options.RequestStateTTL), and rejects with -32602 any state that
// fails one of those. It carries the answers of earlier rounds, so that a
// request needing several rounds of input keeps them without server-side
// storage. There is no principal to bind it to: the reference
// authenticates no one. Replaying a state is harmless (it only repeats
// answers the client gave), so it is not single-use.

// stateKey is the process's HMAC key for requestState.
var stateKey = func() []byte {
	k := make([]byte, sha256.Size)
	_, _ = rand.Read(k) // crypto/rand.Read never fails; it aborts the process if it cannot read
	return k
}()

// origin is the request a requestState belongs to.
type origin struct {
	Method string `json:"m"`
	// Target is the tool or prompt name, or the resource URI.
	Target string `json:"t"`
	// Args is a digest of the canonical JSON of the arguments.
	Args string `json:"a"`
}

// originOf is the origin of a request of method on target with args (a
// JSON object; absent or null is the same as {}).
func originOf(method, target string, args json.RawMessage) origin {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) != nil || v == nil {
		v = map[string]any{}
	}
	canonical, _ := json.Marshal(v) // map keys sorted: the same arguments give the same digest
	sum := sha256.Sum256(canonical)
	return origin{Method: method, Target: target, Args: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// describe names the origin for an error message.
func (o origin) describe() string { return fmt.Sprintf("%s of %q", o.Method, o.Target) }

// sealedState is what a requestState holds.
type sealedState struct {
	origin
	// Expires is when it stops being accepted, in Unix milliseconds.
	Expires int64 `json:"x"`
	// Answers are the client's answers of earlier rounds, by key.
	Answers map[string]json.RawMessage `json:"r,omitempty"`
}

// sealState is a requestState for o carrying answers: the base64url JSON
// of a sealedState, a dot, and the base64url HMAC-SHA256 of that JSON.
func (s *Server) sealState(o origin, answers map[string]json.RawMessage, now time.Time) string {
	payload, _ := json.Marshal(sealedState{origin: o, Expires: now.Add(s.opts.RequestStateTTL).UnixMilli(), Answers: answers})
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(stateMAC(payload))
}

func stateMAC(payload []byte) []byte {
	mac := hmac.New(sha256.New, stateKey)
	mac.Write(payload)
	return mac.Sum(nil)
}

// openState verifies raw, the requestState a request of origin o echoed,
// and returns the answers it carries; a state that is not a string, was
// altered or not issued here, belongs to another request, or expired gets
// -32602 saying so. verified is false only for mutant
// RequestStateUnverified's state that failed.
func (s *Server) openState(raw json.RawMessage, o origin, now time.Time) (answers map[string]json.RawMessage, verified bool, rpcErr *jsonrpc.Error) {
	answers, rpcErr = s.verifyState(raw, o, now)
	if rpcErr != nil && s.opts.Mutant == mutant.RequestStateUnverified {
		return nil, false, nil // as if no state came: the request starts over
	}
	return answers, rpcErr == nil, rpcErr
}

func (s *Server) verifyState(raw json.RawMessage, o origin, now time.Time) (map[string]json.RawMessage, *jsonrpc.Error) {
	var token string
	if json.Unmarshal(raw, &token) != nil {
		return nil, mcp.InvalidParams(fmt.Sprintf("requestState must be the string an InputRequiredResult gave, echoed unchanged, not %s", clipped(raw)))
	}
	const startOver = "; send the request again without requestState and inputResponses to start over"
	payload, mac, err := splitState(token)
	if err == nil && !s.signed(payload, mac) {
		err = errors.New("its signature does not match")
	}
	var st sealedState
	if err == nil {
		err = json.Unmarshal(payload, &st)
	}
	switch {
	case err != nil:
		return nil, mcp.InvalidParams("requestState failed verification: this server did not issue it, or it was altered (" + err.Error() + ")" + startOver)
	case st.origin != o && s.opts.Mutant != mutant.RequestStateUnbound:
		issued := st.describe()
		if st.Method == o.Method && st.Target == o.Target {
			issued += " with other arguments"
		}
		return nil, mcp.InvalidParams(fmt.Sprintf("requestState was issued for %s, not for this %s%s", issued, o.describe(), startOver))
	case now.UnixMilli() > st.Expires:
		return nil, mcp.InvalidParams(fmt.Sprintf("requestState expired at %s (it is valid for %v)%s",
			time.UnixMilli(st.Expires).UTC().Format(time.RFC3339), s.opts.RequestStateTTL, startOver))
	}
	return st.Answers, nil
}

// signed reports whether mac is the signature of payload.
func (s *Server) signed(payload, mac []byte) bool {
	if s.opts.Mutant == mutant.RequestStateRejected {
		return false
	}
	return hmac.Equal(mac, stateMAC(payload))
}

// splitState decodes the two parts of a requestState.
func splitState(token string) (payload, mac []byte, err error) {
	p, m, ok := strings.Cut(token, ".")
	if !ok {
		return nil, nil, fmt.Errorf("it is not of the form PAYLOAD.SIGNATURE")
	}
	if payload, err = base64.RawURLEncoding.DecodeString(p); err == nil {
		mac, err = base64.RawURLEncoding.DecodeString(m)
	}
	return payload, mac, err
}

// clipped is raw JSON shortened for an error message.
func clipped(raw json.RawMessage) string {
	const most = 64
	if len(raw) > most {
		return string(raw[:most]) + "…"
	}
	return string(raw)
}
