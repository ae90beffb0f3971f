package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// SetModernHeaders sets the headers that mirror m on a 2026-07-28 POST:
// Mcp-Method always, Mcp-Name for tools/call and prompts/get (params.name)
// and resources/read (params.uri) (HT-77), and for the tasks extension's
// tasks/get, tasks/update and tasks/cancel (params.taskId), values encoded
// where they are not plain header-safe text (HT-78).
func SetModernHeaders(h http.Header, m *jsonrpc.Message) {
	h.Set(HeaderMethod, encodeHeaderValue(m.Method))
	if name, ok := mirroredName(m); ok {
		h.Set(HeaderName, encodeHeaderValue(name))
	}
}

// mirroredName is the value Mcp-Name mirrors, if m's method has one.
func mirroredName(m *jsonrpc.Message) (string, bool) {
	field := ""
	switch m.Method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		field = "taskId" // the tasks extension (SEP-2663)
	default:
		return "", false
	}
	var params map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &params)
	var name string
	if json.Unmarshal(params[field], &name) != nil {
		return "", false
	}
	return name, true
}

// The markers of an encoded header value (HT-78).
const (
	encodedPrefix = "=?base64?"
	encodedSuffix = "?="
)

// encodeHeaderValue sends v as is when it is plain printable ASCII without
// edge spaces and does not look encoded; otherwise base64 of its UTF-8
// between the markers (HT-78).
func encodeHeaderValue(v string) string {
	plain := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, encodedPrefix) && strings.HasSuffix(v, encodedSuffix))
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain {
		return v
	}
	return encodedPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + encodedSuffix
}

// decodeHeaderValue undoes encodeHeaderValue.
func decodeHeaderValue(v string) (string, error) {
	if !strings.HasPrefix(v, encodedPrefix) || !strings.HasSuffix(v, encodedSuffix) || len(v) < len(encodedPrefix)+len(encodedSuffix) {
		return v, nil
	}
	b, err := base64.StdEncoding.DecodeString(v[len(encodedPrefix) : len(v)-len(encodedSuffix)])
	return string(b), err
}

// MirrorProblem says how a 2026-07-28 POST's Mcp-Method and Mcp-Name
// disagree with its body (HT-81); "" when they agree.
func MirrorProblem(h http.Header, m *jsonrpc.Message) string {
	check := func(header, want string) string {
		values := h.Values(header)
		if len(values) != 1 {
			return fmt.Sprintf("the POST needs one %s header mirroring the body (%q), it has %d", header, want, len(values))
		}
		got, err := decodeHeaderValue(values[0])
		if err != nil || got != want {
			return fmt.Sprintf("the %s header (%q) differs from the body (%q); send the same value in both", header, values[0], want)
		}
		return ""
	}
	if problem := check(HeaderMethod, m.Method); problem != "" {
		return problem
	}
	if name, ok := mirroredName(m); ok {
		return check(HeaderName, name)
	}
	return ""
}
