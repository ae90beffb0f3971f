package client

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The rules of _meta keys (JR-42 … JR-45), of the W3C trace keys in _meta
// (JR-50), and of extension identifiers (LC-50).

var (
	// metaLabel is one label of a key's prefix (JR-42).
	metaLabel = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?$`)
	// metaName is a key's name, unless empty (JR-43).
	metaName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	// traceparent is W3C Trace Context's traceparent: version, trace-id,
	// parent-id and flags in lower-case hex (JR-50).
	traceparent = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
	// traceMember is one key=value member of tracestate or baggage.
	traceMember = regexp.MustCompile(`^[^=,\s]+=[^,]*$`)
)

// mcpMetaKeys are the _meta keys under a reserved prefix that MCP itself
// defines; any other key there is a third party's, which the prefix
// reserves against (JR-44, JR-45).
var mcpMetaKeys = []string{
	mcp.MetaProtocolVersion, mcp.MetaClientCapabilities, mcp.MetaClientInfo, mcp.MetaServerInfo,
	mcp.MetaLogLevel, mcp.MetaSubscriptionID, "io.modelcontextprotocol/related-task",
}

// metaKeyProblem says what is wrong with _meta key k in a message of
// protocol version v, and the rule it breaks; "" when nothing.
func metaKeyProblem(k, v string) (problem, rule string) {
	prefix, _ := splitKey(k)
	if problem, rule := keyFormProblem(k); problem != "" {
		return problem, rule
	}
	if rule := reservedBy(prefix, v); rule != "" && !slices.Contains(mcpMetaKeys, k) {
		return fmt.Sprintf("key %q: its prefix is reserved for MCP, which defines no such key", k), rule
	}
	return "", ""
}

// splitKey splits a _meta key into its prefix (without the slash; "" for
// none) and its name.
func splitKey(k string) (prefix, name string) {
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		return k[:i], k[i+1:]
	}
	return "", k
}

// keyFormProblem says what is wrong with the form of key k (JR-42, JR-43),
// and the rule it breaks; "" when nothing.
func keyFormProblem(k string) (problem, rule string) {
	prefix, name := splitKey(k)
	if strings.Contains(k, "/") {
		for _, l := range strings.Split(prefix, ".") {
			if !metaLabel.MatchString(l) {
				return fmt.Sprintf("key %q: its prefix label %q does not start with a letter, end with a letter or digit and hold only letters, digits and hyphens", k, l), "JR-42"
			}
		}
	}
	if name != "" && !metaName.MatchString(name) {
		return fmt.Sprintf("key %q: its name %q does not start and end with a letter or digit and hold only those, '-', '_' and '.'", k, name), "JR-43"
	}
	return "", ""
}

// reservedBy is the rule by which protocol version v reserves prefix for
// MCP: from 2025-11-25 a second label modelcontextprotocol or mcp (JR-45);
// in 2025-06-18 such a label followed by another (JR-44); "" when it does
// not.
func reservedBy(prefix, v string) string {
	labels := strings.Split(prefix, ".")
	mcpLabel := func(l string) bool { return l == "modelcontextprotocol" || l == "mcp" }
	switch {
	case prefix == "":
		return ""
	case v == "2025-06-18" && slices.ContainsFunc(labels[:len(labels)-1], mcpLabel):
		return "JR-44"
	case v != "2025-06-18" && len(labels) > 1 && mcpLabel(labels[1]):
		return "JR-45"
	}
	return ""
}

// traceProblem says what is wrong with the value of _meta key k when it is
// a W3C trace key (traceparent, tracestate, baggage), or "" (JR-50).
func traceProblem(k string, raw json.RawMessage) string {
	if k != "traceparent" && k != "tracestate" && k != "baggage" {
		return ""
	}
	var value string
	if err := json.Unmarshal(raw, &value); err != nil {
		return fmt.Sprintf("%s is %s, not a string", k, raw)
	}
	switch k {
	case "traceparent":
		parts := strings.Split(value, "-")
		if !traceparent.MatchString(value) || parts[0] == "ff" || strings.Trim(parts[1], "0") == "" || strings.Trim(parts[2], "0") == "" {
			return fmt.Sprintf("traceparent %q is not version-traceid-parentid-flags in lower-case hex with non-zero ids (W3C Trace Context)", value)
		}
	case "tracestate", "baggage":
		for _, member := range strings.Split(value, ",") {
			if member = strings.TrimSpace(member); member != "" && !traceMember.MatchString(strings.SplitN(member, ";", 2)[0]) {
				return fmt.Sprintf("%s %q: member %q is not key=value (W3C Trace Context / Baggage)", k, value, member)
			}
		}
	}
	return ""
}
