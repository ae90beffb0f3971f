package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Resources, found by listing what the server serves: RS-02, RS-05, RS-06,
// RS-10, JR-30. Each check holds a conversation in every era the server
// serves: a legacy session after initialize, and 2026-07-28 requests that
// name their version, each on a connection of its own.

// maxResourceReads bounds how many listed resources
// server.resources.read-listed reads in each era: a server may list
// thousands (a file system's), and the first ones show how it answers.
const maxResourceReads = 20

// unknownResourceURI is a URI no server has a resource at.
const unknownResourceURI = "mcpconform://no-such-resource"

// ask sends a request of the peer's era: as it is in the legacy era, and in
// the 2026-07-28 era naming that version in _meta (and in the HTTP header).
func (p *peer) ask(method string, params map[string]any) *jsonrpc.Message {
	if p.modern != "" {
		return p.modernRequest(method, p.modern, modernParams(p.modern, params))
	}
	return p.request(method, params)
}

// eachResourceEra is eachEraDeclaring for the resources capability; body
// gets the peer and the version it speaks.
func eachResourceEra(c *run.C, body func(p *peer, version string)) {
	eachEraDeclaring(c, "resources", "declare resources, and serve resources/list and resources/read, to be judged",
		func(p *peer, e servedEra) { body(p, e.version) })
}

var _ = serverCheck(check.Descriptor{
	ID: "server.resources.read-listed",
	Title: fmt.Sprintf("every resource resources/list names has an RFC 3986 uri, and (the first %d, in each era) reads with resources/read into contents "+
		"with a uri, exactly one of text or base64 blob, and a string mimeType if any", maxResourceReads),
	Requirement: "resources/list names each resource by an RFC 3986 URI; resources/read returns contents, each with its uri, an optional mimeType, and either text or a base64 blob: binary data is properly encoded; " +
		"in 2026-07-28 the contents are never empty.",
	Rules:      []string{"RS-06", "RS-02", "RS-10", "RS-07"},
	Eras:       check.BothEras,
	Capability: "resources",
	KilledBy:   []mutant.Name{mutant.ResourceBlobNotBase64, mutant.ResourceURIInvalid},
}, func(c *run.C) {
	eachResourceEra(c, func(p *peer, version string) {
		listed := listAll(c, p, "resources/list", "resources")
		for _, raw := range listed {
			var res struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(raw, &res)
			problem := uriProblem(res.URI)
			c.RequireRule("RS-07", problem == "", fmt.Sprintf("every uri resources/list names is an RFC 3986 URI (%s, %s)", version, p.transport), "%q: %s", res.URI, problem)
		}
		read := 0
		for _, raw := range listed[:min(len(listed), maxResourceReads)] {
			var res struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(raw, &res)
			m := p.ask("resources/read", map[string]any{"uri": res.URI})
			if m.Error != nil {
				c.Note("resources/read of the listed %q (%s, %s) was refused: %s; its contents were not judged", res.URI, version, p.transport, describe(m))
				continue
			}
			var r struct {
				ResultType string                       `json:"resultType"`
				Contents   []map[string]json.RawMessage `json:"contents"`
			}
			_ = json.Unmarshal(m.Result, &r)
			if r.ResultType == "input_required" {
				c.Note("resources/read of %q (%s, %s) asked for input; its contents were not judged", res.URI, version, p.transport)
				continue
			}
			read++
			if p.modern != "" {
				c.RequireRule("RS-10", len(r.Contents) > 0, fmt.Sprintf("resources/read of %q (%s, %s): contents that are not empty", res.URI, version, p.transport), "%s", clip(string(m.Result)))
			}
			for i, item := range r.Contents {
				bad := contentsProblems(item)
				c.Require(len(bad) == 0, fmt.Sprintf("contents[%d] of resources/read %q (%s, %s): a string uri, exactly one of text (a string) or blob (base64), a string mimeType if any", i, res.URI, version, p.transport),
					"%s: %s", strings.Join(bad, "; "), clip(marshal(item)))
			}
		}
		if len(listed) > maxResourceReads {
			c.Note("resources/list (%s, %s) names %d resources; the first %d were read", version, p.transport, len(listed), maxResourceReads)
		}
		if read == 0 {
			c.Unimplemented(fmt.Sprintf("no listed resource was read in %s (%s: %d listed); list a resource that resources/read serves", version, p.transport, len(listed)))
		}
	})
})

// contentsProblems says what is wrong with one item of a resources/read
// result's contents: its uri, text or blob, and mimeType.
func contentsProblems(item map[string]json.RawMessage) []string {
	var bad []string
	if s, ok := jsonString(item["uri"]); !ok || s == "" {
		bad = append(bad, "no string uri")
	}
	text, hasText := item["text"]
	blob, hasBlob := item["blob"]
	switch {
	case hasText == hasBlob:
		bad = append(bad, "not exactly one of text and blob")
	case hasText:
		if _, ok := jsonString(text); !ok {
			bad = append(bad, "text is not a string")
		}
	default:
		s, ok := jsonString(blob)
		if _, err := base64.StdEncoding.DecodeString(s); !ok || err != nil {
			bad = append(bad, "blob is not a base64 string")
		}
	}
	if mt, present := item["mimeType"]; present {
		if _, ok := jsonString(mt); !ok {
			bad = append(bad, "mimeType is not a string")
		}
	}
	return bad
}

// jsonString reads raw as a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	return s, raw != nil && json.Unmarshal(raw, &s) == nil
}

// marshal is v as JSON, for a message.
func marshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = serverCheck(check.Descriptor{
	ID:    "server.resources.unknown-uri",
	Title: "resources/read of a URI the server has no resource at gets a JSON-RPC error: -32002 or -32602 before 2026-07-28, -32602 in 2026-07-28",
	Requirement: "A resource that is not found is a JSON-RPC error, not a result: -32002 Resource not found before 2026-07-28 (-32602 accepted), " +
		"and in 2026-07-28 -32602, never -32002 and never an empty contents list.",
	Rules:      []string{"RS-10", "JR-30", "RS-05", "JR-25"},
	Eras:       check.BothEras,
	Capability: "resources",
	KilledBy:   []mutant.Name{mutant.UnknownResourceContents, mutant.NotFoundLegacyCode},
}, func(c *run.C) {
	eachResourceEra(c, func(p *peer, version string) {
		m := p.ask("resources/read", map[string]any{"uri": unknownResourceURI})
		where := fmt.Sprintf("resources/read of %s (%s, %s)", unknownResourceURI, version, p.transport)
		if p.modern == "" {
			c.RequireRule("RS-05", m.Error != nil && (m.Error.Code == jsonrpc.CodeResourceNotFound || m.Error.Code == jsonrpc.CodeInvalidParams),
				where+": error -32002 (Resource not found) or -32602", "%s", describe(m))
			return
		}
		c.RequireRule("RS-10", m.Error != nil, where+": an error, not a result", "%s", describe(m))
		c.RequireRule("JR-30", m.Error.Code != jsonrpc.CodeResourceNotFound, where+": not the legacy -32002", "%s", describe(m))
		c.RequireRule("RS-10", m.Error.Code == jsonrpc.CodeInvalidParams, where+": error -32602", "%s", describe(m))
	})
})
