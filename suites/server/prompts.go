package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Prompts and completion, reached by listing what the server serves:
// PM-02, PM-04, TL-14 (the base64 and MIME type of image and audio content,
// which the prompts page states too), CP-03.

// maxPromptsGot bounds how many listed prompts a check gets.
const maxPromptsGot = 20

// maxCompletionValues is the most values one completion result may hold (CP-03).
const maxCompletionValues = 100

// feature is the check's conversation with the server in the era it serves
// over one transport: the capabilities it declared, and ask, which sends a
// request of that era (a 2026-07-28 one carries its _meta).
type feature struct {
	p    *peer
	caps map[string]json.RawMessage
	ask  func(method string, params map[string]any) *jsonrpc.Message
}

// openFeature opens the conversation: the legacy handshake (2025-11-25)
// where the server serves the legacy era, else server/discover of
// 2026-07-28. It ends the check UNIMPLEMENTED unless the server declares
// capability.
func openFeature(c *run.C, p *peer, capability string) feature {
	if e := c.ServerEras(check.Transport(p.transport)); e.Legacy || !e.Modern {
		f := feature{p: p, caps: p.initialize(v1125, nil).Capabilities}
		f.ask = func(method string, params map[string]any) *jsonrpc.Message { return p.request(method, params) }
		f.require(c, capability)
		return f
	}
	return openModernFeature(c, p, capability)
}

// openModernFeature is openFeature in the 2026-07-28 era, whatever else
// the server serves: server/discover says what it declares.
func openModernFeature(c *run.C, p *peer, capability string) feature {
	f := feature{p: p}
	f.ask = func(method string, params map[string]any) *jsonrpc.Message {
		return p.modernRequest(method, mcp.ModernVersion, modernParams(mcp.ModernVersion, params))
	}
	m := f.ask(mcp.MethodDiscover, nil)
	c.Require(m.Error == nil, "server/discover succeeds ("+p.transport+")", "%s", describe(m))
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(m.Result, &r)
	f.caps = r.Capabilities
	f.require(c, capability)
	return f
}

// require ends the check UNIMPLEMENTED unless the server declares
// capability ("": any).
func (f feature) require(c *run.C, capability string) {
	if capability != "" && f.caps[capability] == nil {
		c.Unimplemented(fmt.Sprintf("the server declares no %s capability over %s; declare it to have its %s judged", capability, f.p.transport, capability))
	}
}

// listedPrompt is a prompt of prompts/list.
type listedPrompt struct {
	Name      string `json:"name"`
	Arguments []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
}

// prompts walks every page of prompts/list and returns the first
// maxPromptsGot prompts.
func (f feature) prompts(c *run.C) []listedPrompt {
	raws := f.pages(c, "prompts/list", "prompts", true)
	var out []listedPrompt
	for _, raw := range raws[:min(len(raws), maxPromptsGot)] {
		var pr listedPrompt
		_ = json.Unmarshal(raw, &pr)
		out = append(out, pr)
	}
	return out
}

// arguments are values for the required arguments of pr: the first value
// completion/complete offers for each when the server declares completions
// (given the values chosen before it), else "1".
func (f feature) arguments(pr listedPrompt) map[string]any {
	args := map[string]any{}
	for _, a := range pr.Arguments {
		if !a.Required {
			continue
		}
		args[a.Name] = "1"
		if f.caps["completions"] == nil {
			continue
		}
		m := f.ask("completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": pr.Name},
			"argument": map[string]any{"name": a.Name, "value": ""},
			"context":  map[string]any{"arguments": args},
		})
		var r struct {
			Completion struct {
				Values []string `json:"values"`
			} `json:"completion"`
		}
		if m.Error == nil && json.Unmarshal(m.Result, &r) == nil && len(r.Completion.Values) > 0 {
			args[a.Name] = r.Completion.Values[0]
		}
	}
	return args
}

// isMIMEType matches a type/subtype media type, parameters allowed.
var isMIMEType = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$`)

// contentProblem says what is wrong with one content block of a prompt
// message, "" when nothing is (PM-02, TL-14).
func contentProblem(raw json.RawMessage) string {
	var b struct {
		Type     string          `json:"type"`
		Text     *string         `json:"text"`
		Data     *string         `json:"data"`
		MIMEType string          `json:"mimeType"`
		Resource json.RawMessage `json:"resource"`
		URI      string          `json:"uri"`
		Name     *string         `json:"name"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return "it is not an object"
	}
	switch b.Type {
	case "text":
		if b.Text == nil {
			return "a text block without a string text"
		}
	case "image", "audio":
		if b.Data == nil {
			return "a " + b.Type + " block without data"
		}
		if _, err := base64.StdEncoding.DecodeString(*b.Data); err != nil {
			return fmt.Sprintf("%s data that is not base64 (%v)", b.Type, err)
		}
		if !isMIMEType.MatchString(b.MIMEType) {
			return fmt.Sprintf("%s mimeType %q, not a media type", b.Type, b.MIMEType)
		}
	case "resource":
		var r struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		}
		if json.Unmarshal(b.Resource, &r) != nil || r.URI == "" || (r.Text == nil) == (r.Blob == nil) {
			return "an embedded resource without a uri and exactly one of text and blob"
		}
		if r.Blob != nil {
			if _, err := base64.StdEncoding.DecodeString(*r.Blob); err != nil {
				return fmt.Sprintf("an embedded resource blob that is not base64 (%v)", err)
			}
		}
	case "resource_link":
		if b.URI == "" || b.Name == nil {
			return "a resource_link without uri and name"
		}
	default:
		return fmt.Sprintf("type %q, none of text, image, audio, resource, resource_link", b.Type)
	}
	return ""
}

var _ = serverCheck(check.Descriptor{
	ID:    "server.prompts.get-listed",
	Title: "every prompt prompts/list returns (its first 20) can be got with prompts/get, its required arguments given, and each message has role user or assistant and a valid content block",
	Requirement: "prompts/get returns messages, each with role user or assistant and one content block: text with a string, image or audio " +
		"with base64 data and a MIME type, an embedded resource, or a resource link.",
	Rules:      []string{"TL-14", "PM-02", "JR-01"},
	Eras:       check.BothEras,
	Capability: "prompts",
	KilledBy:   []mutant.Name{mutant.PromptImageNotBase64},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		f := openFeature(c, p, "prompts")
		got := 0
		for _, pr := range f.prompts(c) {
			m := f.ask("prompts/get", map[string]any{"name": pr.Name, "arguments": f.arguments(pr)})
			if m.Error != nil {
				c.Note("prompts/get of %q with the arguments the check chose was refused (%s): not judged", pr.Name, describe(m))
				continue
			}
			var r struct {
				ResultType string `json:"resultType"`
				Messages   []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			_ = json.Unmarshal(m.Result, &r)
			if r.ResultType == mcp.ResultTypeInputRequired {
				c.Note("prompts/get of %q asked for input (PM-06): not judged", pr.Name)
				continue
			}
			got++
			what := fmt.Sprintf("prompts/get of %q (%s)", pr.Name, p.transport)
			c.Require(r.Messages != nil, what+" has messages", "%s", describe(m))
			for i, msg := range r.Messages {
				c.Require(msg.Role == "user" || msg.Role == "assistant", fmt.Sprintf("%s: message %d has role user or assistant", what, i), "role %q", msg.Role)
				problem := contentProblem(msg.Content)
				c.Require(problem == "", fmt.Sprintf("%s: message %d has a valid content block", what, i), "%s: %s", problem, clip(string(msg.Content)))
			}
		}
		if got == 0 {
			c.Unimplemented("no listed prompt could be got over " + p.transport + " with the arguments the check chose; serve a prompt whose required arguments accept any string or that completion/complete offers values for")
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.prompts.missing-argument",
	Title:       "prompts/get of a listed prompt without its required arguments gets -32602",
	Requirement: "A prompts/get that misses a required argument is answered with -32602 (Invalid params).",
	Rules:       []string{"PM-04", "PM-05"},
	Eras:        check.BothEras,
	Capability:  "prompts",
	KilledBy:    []mutant.Name{mutant.PromptMissingArgumentServed},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		f := openFeature(c, p, "prompts")
		for _, pr := range f.prompts(c) {
			for _, a := range pr.Arguments {
				if !a.Required {
					continue
				}
				m := f.ask("prompts/get", map[string]any{"name": pr.Name, "arguments": map[string]any{}})
				c.Require(m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams,
					fmt.Sprintf("prompts/get of %q without its required argument %q: error -32602 (%s)", pr.Name, a.Name, p.transport), "%s", describe(m))
				return
			}
		}
		c.Unimplemented("no listed prompt has a required argument over " + p.transport + "; list one to have a missing argument judged")
	})
})

var _ = serverCheck(check.Descriptor{
	ID:    "server.completion.values-bounded",
	Title: "completion/complete for an argument of a listed prompt and a variable of a listed resource template returns at most 100 string values, total and hasMore agreeing with them",
	Requirement: "A completion result holds at most 100 values; total, when present, counts at least the values returned, " +
		"and hasMore says whether more remain than were returned.",
	Rules:      []string{"CP-03", "LM-04"},
	Eras:       check.BothEras,
	Capability: "completions",
	KilledBy:   []mutant.Name{mutant.CompletionValuesUnbounded},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		f := openFeature(c, p, "completions")
		results := map[string]json.RawMessage{}
		for _, l := range []string{"prompts/list", "resources/templates/list"} {
			if m := f.ask(l, nil); m.Error == nil {
				results[l] = m.Result
			}
		}
		ref, arg := completionTarget(results)
		if arg == madeUpArgument {
			c.Unimplemented("the server lists no prompt with an argument and no resource template with a variable over " + p.transport + "; list one to have its completions judged")
		}
		m := f.ask("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}})
		requireCompletion(c, fmt.Sprintf("completion/complete of %s %q (%s)", ref["type"], arg, p.transport), m)
	})
})
