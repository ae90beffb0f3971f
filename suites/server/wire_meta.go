package server

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// The forms of _meta keys (JR-42 … JR-45) and of the W3C trace keys they
// may hold (JR-50), for server.wire.conventions.

var (
	// metaLabel is a label of a _meta key's prefix (JR-42).
	metaLabel = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)
	// metaName is the name of a _meta key, when not empty (JR-43).
	metaName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
)

// splitMetaKey cuts a _meta key into the labels of its prefix (prefixed
// when it has one, up to the first "/") and its name.
func splitMetaKey(key string) (labels []string, name string, prefixed bool) {
	prefix, name, prefixed := strings.Cut(key, "/")
	if !prefixed {
		return nil, key, false
	}
	return strings.Split(prefix, "."), name, true
}

// badLabel is the first label that is not a valid one, and whether there
// is one.
func badLabel(labels []string) (string, bool) {
	for _, l := range labels {
		if !metaLabel.MatchString(l) {
			return l, true
		}
	}
	return "", false
}

// mcpLabel reports whether a label is one MCP reserves.
func mcpLabel(l string) bool { return l == "modelcontextprotocol" || l == "mcp" }

// reservedFollowed reports a prefix reserved in 2025-06-18 (JR-44): a
// label modelcontextprotocol or mcp followed by another label.
func reservedFollowed(labels []string) bool {
	return slices.ContainsFunc(labels[:max(len(labels)-1, 0)], mcpLabel)
}

// reservedSecond reports a prefix reserved from 2025-11-25 on (JR-45):
// its second label is modelcontextprotocol or mcp.
func reservedSecond(labels []string) bool { return len(labels) > 1 && mcpLabel(labels[1]) }

// definedByMCP are the keys under a reserved prefix that MCP itself
// defines (the specification and its official extensions): a server may
// send them.
var definedByMCP = map[string]bool{}

func init() {
	for _, name := range []string{"protocolVersion", "clientCapabilities", "clientInfo", "serverInfo", "logLevel", "subscriptionId",
		"related-task", "tasks", "ui", "oauth-client-credentials"} {
		definedByMCP["io.modelcontextprotocol/"+name] = true
	}
}

// traceKeys are the W3C keys a _meta may carry, each with the test of its
// format (JR-50).
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

// listsURLElicitations reports whether a -32042 error's data lists the
// URL-mode elicitations needed, each with an elicitationId (JR-26).
func listsURLElicitations(data json.RawMessage) bool {
	var d struct {
		Elicitations []struct {
			Mode          string `json:"mode"`
			ElicitationID string `json:"elicitationId"`
		} `json:"elicitations"`
	}
	if json.Unmarshal(data, &d) != nil || len(d.Elicitations) == 0 {
		return false
	}
	for _, e := range d.Elicitations {
		if e.Mode != "url" || e.ElicitationID == "" {
			return false
		}
	}
	return true
}
