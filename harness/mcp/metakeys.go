package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The forms of _meta keys (JR-42 … JR-45), of the W3C trace keys a _meta
// may carry (JR-50) and of extension identifiers (LC-50), which the client
// and the server checks judge alike.

var (
	// metaLabel is a label of a _meta key's prefix (JR-42).
	metaLabel = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)
	// metaName is the name of a _meta key, when not empty (JR-43).
	metaName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
)

// definedMetaKeys are the keys under a prefix reserved for MCP that MCP
// itself defines (the specification and its official extensions): any
// other key there is a third party's, which the reservation forbids.
var definedMetaKeys = []string{MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo, MetaServerInfo, MetaLogLevel, MetaSubscriptionID,
	"io.modelcontextprotocol/related-task", "io.modelcontextprotocol/tasks", "io.modelcontextprotocol/ui", "io.modelcontextprotocol/oauth-client-credentials"}

// SplitMetaKey cuts a _meta key into the labels of its prefix (when it has
// one, up to the first "/") and its name.
func SplitMetaKey(key string) (labels []string, name string, prefixed bool) {
	prefix, name, prefixed := strings.Cut(key, "/")
	if !prefixed {
		return nil, key, false
	}
	return strings.Split(prefix, "."), name, true
}

// MetaKeyFormProblem says what is wrong with the form of a _meta key (or an
// extension identifier, which has the same form) and the rule it breaks:
// a prefix label (JR-42) or the name (JR-43); "" when nothing is.
func MetaKeyFormProblem(key string) (problem, rule string) {
	labels, name, _ := SplitMetaKey(key)
	for _, l := range labels {
		if !metaLabel.MatchString(l) {
			return fmt.Sprintf("key %q: its prefix label %q is not letters, digits and inner hyphens starting with a letter", key, l), "JR-42"
		}
	}
	if name != "" && !metaName.MatchString(name) {
		return fmt.Sprintf("key %q: its name %q does not start and end with a letter or digit with only letters, digits, '-', '_' and '.' inside", key, name), "JR-43"
	}
	return "", ""
}

// MetaKeyReservedBy is the rule by which a _meta key of a message of
// protocol version v is under a prefix reserved for MCP that MCP does not
// define: in 2025-06-18 a label modelcontextprotocol or mcp followed by
// another (JR-44), from 2025-11-25 on such a second label (JR-45); "" when
// the key is free to use.
func MetaKeyReservedBy(key, v string) string {
	labels, _, prefixed := SplitMetaKey(key)
	mcpLabel := func(l string) bool { return l == "modelcontextprotocol" || l == "mcp" }
	switch {
	case !prefixed || slices.Contains(definedMetaKeys, key):
	case v == "2025-06-18" && slices.ContainsFunc(labels[:len(labels)-1], mcpLabel):
		return "JR-44"
	case v >= "2025-11-25" && len(labels) > 1 && mcpLabel(labels[1]):
		return "JR-45"
	}
	return ""
}

// ExtensionIDProblem says what is wrong with an extension identifier: a
// _meta key's form, with a prefix (LC-50); "" when nothing is.
func ExtensionIDProblem(id string) string {
	if _, _, prefixed := SplitMetaKey(id); !prefixed {
		return fmt.Sprintf("extension %q has no prefix (e.g. com.example/name)", id)
	}
	problem, _ := MetaKeyFormProblem(id)
	return problem
}

// TraceKeyProblem says what is wrong with the value of _meta key k when it
// is a W3C trace key (traceparent, tracestate, baggage); "" when it is
// another key or its value is of the key's format (JR-50).
func TraceKeyProblem(k string, raw json.RawMessage) string {
	valid, ok := traceKeys[k]
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Sprintf("%s is %s, not a string", k, raw)
	}
	if !valid(s) {
		return fmt.Sprintf("%s %q is not of the W3C format", k, s)
	}
	return ""
}

// traceKeys are the W3C keys a _meta may carry, each with the test of its
// format.
var traceKeys = map[string]func(string) bool{
	"traceparent": validTraceparent,
	"tracestate":  validTracestate,
	"baggage":     validBaggage,
}

var (
	traceparent  = regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$`)
	tracestateKV = regexp.MustCompile(`^(?:[a-z0-9][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)
	baggageToken = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
	baggageValue = `[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*`
	baggageEntry = regexp.MustCompile(`^` + baggageToken + `[ \t]*=[ \t]*` + baggageValue + `(?:[ \t]*;[ \t]*` + baggageToken + `(?:[ \t]*=[ \t]*` + baggageValue + `)?)*$`)
)

// validTraceparent: version-traceid-parentid-flags in lower-case hex, the
// version not ff (and 00 with nothing after the flags), neither id all
// zeros (W3C Trace Context).
func validTraceparent(s string) bool {
	m := traceparent.FindStringSubmatch(s)
	return m != nil && m[1] != "ff" && !(m[1] == "00" && m[4] != "") &&
		strings.Trim(m[2], "0") != "" && strings.Trim(m[3], "0") != ""
}

// validTracestate: at most 32 comma-separated key=value members (empty
// ones allowed) of the W3C Trace Context forms.
func validTracestate(s string) bool {
	members := strings.Split(s, ",")
	if len(members) > 32 {
		return false
	}
	for _, m := range members {
		if m = strings.Trim(m, " \t"); m != "" && !tracestateKV.MatchString(m) {
			return false
		}
	}
	return true
}

// validBaggage: one or more comma-separated key=value members, each with
// optional ;properties, of the W3C Baggage forms.
func validBaggage(s string) bool {
	for _, m := range strings.Split(s, ",") {
		if !baggageEntry.MatchString(strings.Trim(m, " \t")) {
			return false
		}
	}
	return true
}
