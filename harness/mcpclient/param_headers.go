package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The x-mcp-header annotation of a tool parameter and the header prefix it
// names (HT-79).
const (
	xMCPHeader        = "x-mcp-header"
	paramHeaderPrefix = "Mcp-Param-"
)

// maxSafeInteger bounds the integers a parameter header mirrors (HT-80).
const maxSafeInteger = 1<<53 - 1

// paramHeader is one annotated parameter: the header it names and the path
// of properties that leads to it.
type paramHeader struct {
	header string
	path   []string
}

// toolHeaders reads a tool's x-mcp-header annotations. It returns why the
// annotations break the rules of HT-80 (a value that is not a non-empty
// header token, names equal but for case, an annotation on a property that
// is not an integer, string or boolean, or one not reached through
// properties alone), or "" when they keep them.
func toolHeaders(inputSchema json.RawMessage) ([]paramHeader, string) {
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) != nil {
		return nil, ""
	}
	var out []paramHeader
	problem := ""
	seen := map[string]string{}
	var walk func(node any, path []string, viaProperties bool)
	walk = func(node any, path []string, viaProperties bool) {
		switch n := node.(type) {
		case []any:
			for _, v := range n {
				walk(v, path, false)
			}
		case map[string]any:
			if v, ok := n[xMCPHeader]; ok && problem == "" {
				problem = checkAnnotation(v, n, path, viaProperties, seen)
				if problem == "" {
					out = append(out, paramHeader{header: paramHeaderPrefix + v.(string), path: path})
				}
			}
			for k, v := range n {
				if k == "properties" && isObject(n) {
					if props, ok := v.(map[string]any); ok {
						for name, p := range props {
							walk(p, append(append([]string{}, path...), name), viaProperties)
						}
						continue
					}
				}
				if k != xMCPHeader {
					walk(v, path, false)
				}
			}
		}
	}
	walk(root, nil, true)
	if problem != "" {
		return nil, problem
	}
	return out, ""
}

// isObject reports whether a schema describes an object (its properties are
// then parameters).
func isObject(schema map[string]any) bool {
	t, ok := schema["type"]
	return !ok || t == "object"
}

// checkAnnotation says how one x-mcp-header annotation breaks HT-80, or "".
func checkAnnotation(v any, schema map[string]any, path []string, viaProperties bool, seen map[string]string) string {
	at := strings.Join(path, ".")
	name, ok := v.(string)
	switch {
	case !viaProperties || len(path) == 0:
		return fmt.Sprintf("an x-mcp-header annotation sits outside the tool's properties (at %q)", at)
	case !ok || name == "":
		return fmt.Sprintf("property %q has an x-mcp-header that is not a non-empty string", at)
	case !headerToken(name):
		return fmt.Sprintf("property %q has x-mcp-header %q, which is no header name token (letters, digits and !#$%%&'*+-.^_`|~)", at, name)
	}
	if t, _ := schema["type"].(string); t != "integer" && t != "string" && t != "boolean" {
		return fmt.Sprintf("property %q with x-mcp-header %q has type %v; only integer, string and boolean parameters are mirrored", at, name, schema["type"])
	}
	key := strings.ToLower(name)
	if prev, dup := seen[key]; dup {
		return fmt.Sprintf("properties %q and %q name the same header %q (names compare case-insensitively)", prev, at, name)
	}
	seen[key] = at
	return ""
}

// headerToken reports whether s is an RFC 9110 token.
func headerToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// paramHeaders are the Mcp-Param-* headers of a 2026-07-28 tools/call with
// params base: each annotated parameter of the tool that the arguments hold
// and is not null, strings as they are (encoded where not header-safe,
// HT-78), integers in decimal, booleans as true or false (HT-79).
func (s *Session) paramHeaders(method string, base map[string]json.RawMessage) map[string]string {
	if method != "tools/call" {
		return nil
	}
	var name string
	_ = json.Unmarshal(base["name"], &name) // no name: no tool, no headers
	s.toolsMu.Lock()
	tool, ok := s.tools[name]
	s.toolsMu.Unlock()
	if !ok {
		return nil
	}
	specs, _ := toolHeaders(tool.InputSchema)
	var args any
	_ = json.Unmarshal(base["arguments"], &args) // no arguments: no values
	out := map[string]string{}
	for _, p := range specs {
		if v, ok := headerText(lookup(args, p.path)); ok {
			out[p.header] = s.encodeParam(v)
		}
	}
	return out
}

// relistedHeaders meets err, the answer to a 2026-07-28 request sent with
// the Mcp-Param-* headers sent (HT-82): a -32020 to a tools/call may mean
// the server changed the tool's x-mcp-header annotations since the client
// listed it, so the client fetches tools/list again and returns the headers
// the tool's fresh schema gives. retry is false for any other error, when
// the list fails, or when the headers stay the same (a retry would meet the
// same refusal).
func (s *Session) relistedHeaders(ctx context.Context, method string, base map[string]json.RawMessage, sent map[string]string, err error) (fresh map[string]string, retry bool) {
	var e *jsonrpc.Error
	if method != "tools/call" || !errors.As(err, &e) || e.Code != codeHeaderMismatch || s.opts.Mutant == mutant.ParamMismatchNotRelisted {
		return nil, false
	}
	if _, lerr := s.ListTools(ctx); lerr != nil {
		return nil, false
	}
	fresh = s.paramHeaders(method, base)
	return fresh, !maps.Equal(fresh, sent)
}

// encodeParam is v as its header carries it (HT-78); mutant
// ModernParamHeaderRaw sends it as it is where no header rule forbids it
// (no control character).
func (s *Session) encodeParam(v string) string {
	if s.opts.Mutant == mutant.ModernParamHeaderRaw && !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return v
	}
	return mcp.EncodeHeaderValue(v)
}

// lookup follows path through nested objects; nil when it leads nowhere.
func lookup(v any, path []string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// headerText is a parameter value as its header carries it; false for an
// absent or null value, or one that no header mirrors.
func headerText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= maxSafeInteger {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

// keepTools drops, on a transport that carries headers and in the
// 2026-07-28 era, the tools whose x-mcp-header annotations are invalid
// (HT-80), saying why; it remembers the tools it keeps for their headers.
func (s *Session) keepTools(tools []mcp.Tool) []mcp.Tool {
	_, headers := s.t.(HeaderTransport)
	kept := tools[:0:0]
	for _, t := range tools {
		if s.era == EraModern && headers && s.opts.Mutant != mutant.InvalidHeaderToolKept {
			if _, problem := toolHeaders(t.InputSchema); problem != "" {
				s.opts.Warn("tool %q left out (HT-80): %s", t.Name, problem)
				continue
			}
		}
		kept = append(kept, t)
	}
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	s.tools = make(map[string]mcp.Tool, len(kept))
	for _, t := range kept {
		s.tools[t.Name] = t
	}
	return kept
}
