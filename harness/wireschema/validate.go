package wireschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Kind is the shape of a message, as its members say.
type Kind string

// Kinds of message.
const (
	KindRequest      Kind = "request"      // method and id
	KindNotification Kind = "notification" // method, no id
	KindResult       Kind = "result"       // result
	KindError        Kind = "error"        // error
	KindOther        Kind = "message"      // none of those, or not an object
)

// Violation is how one message breaks its schema definition.
type Violation struct {
	Version    string // the schema's protocol version
	Kind       Kind
	Method     string // the request's or notification's method; for a response, the method it answers ("" unknown)
	ID         string // the id as JSON text, "" without one
	Definition string // the definition the message had to match: CallToolRequest, ListToolsResult, …
	Pointer    string // JSON pointer to the offending value in the message ("" for the whole message)
	Keyword    string // the schema rule that failed: required, type, const, …
	Location   string // where that rule is: 2025-11-25/schema.json#/$defs/Tool/required
	Reason     string // one line: missing property 'inputSchema'
}

// Message names the message: "tools/list result (id 3)".
func (v *Violation) Message() string {
	s := string(v.Kind)
	if v.Method != "" {
		s = v.Method + " " + s
	}
	if v.ID != "" {
		s += " (id " + v.ID + ")"
	}
	return s
}

// Error is the violation in one line: the message, the pointer, the reason,
// the definition and the rule.
func (v *Violation) Error() string {
	ptr := v.Pointer
	if ptr == "" {
		ptr = "the message"
	}
	return fmt.Sprintf("%s at %s: %s (%s %s, rule %q at %s)", v.Message(), ptr, v.Reason, v.Definition, v.Version, v.Keyword, v.Location)
}

// Validate checks one raw JSON-RPC message against its definition.
// answers is the method of the request a response answers, when known
// ("" otherwise, and ignored for requests and notifications). It returns
// nil when the message is valid.
func (s *Schema) Validate(msg []byte, answers string) *Violation {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return &Violation{Version: s.version, Kind: KindOther, Definition: s.targets.message, Keyword: "json", Reason: "not JSON: " + err.Error()}
	}
	v, sch := s.classify(doc, answers)
	return s.judge(v, sch, doc)
}

// ValidateDefinition checks a JSON value against the named definition
// (Tool, CallToolResult, …); nil when it is valid.
func (s *Schema) ValidateDefinition(def string, value []byte) (*Violation, error) {
	sch, ok := s.defs[def]
	if !ok {
		return nil, fmt.Errorf("schema %s has no definition %q", s.version, def)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return nil, fmt.Errorf("%s value: %w", def, err)
	}
	return s.judge(Violation{Version: s.version, Kind: KindOther, Definition: def}, sch, doc), nil
}

// Validate checks msg against the schema of version (see For and
// Schema.Validate).
func Validate(version string, msg []byte, answers string) (*Violation, error) {
	s, err := For(version)
	if err != nil {
		return nil, err
	}
	return s.Validate(msg, answers), nil
}

// classify names the message and finds the schema it must match.
func (s *Schema) classify(doc any, answers string) (Violation, *jsonschema.Schema) {
	v := Violation{Version: s.version, Kind: KindOther, Definition: s.targets.message}
	obj, ok := doc.(map[string]any)
	if !ok {
		return v, s.defs[v.Definition]
	}
	rawID, hasID := obj["id"]
	if hasID {
		b, _ := json.Marshal(rawID)
		v.ID = string(b)
	}
	_, hasMethod := obj["method"]
	method, _ := obj["method"].(string)
	_, hasError := obj["error"]
	_, hasResult := obj["result"]
	switch {
	case hasMethod && hasID:
		v.Kind, v.Method = KindRequest, method
		return s.specific(v, s.targets.requests[method], s.targets.request)
	case hasMethod:
		v.Kind, v.Method = KindNotification, method
		return s.specific(v, s.targets.notifications[method], s.targets.notification)
	case hasError:
		v.Kind, v.Method, v.Definition = KindError, answers, s.targets.errorResponse
		if def, ok := s.targets.errors[errorCode(obj["error"])]; ok {
			v.Definition = def
		}
		return v, s.defs[v.Definition]
	case hasResult:
		v.Kind, v.Method = KindResult, answers
		return s.specific(v, s.targets.results[answers], s.targets.result)
	}
	return v, s.defs[v.Definition]
}

// errorCode is the code of an error member as JSON text, "" without one.
func errorCode(e any) string {
	obj, _ := e.(map[string]any)
	if n, ok := obj["code"].(json.Number); ok {
		return n.String()
	}
	return ""
}

// specific is the schema of def inside its envelope, or the generic one
// when the method has no definition.
func (s *Schema) specific(v Violation, def, generic string) (Violation, *jsonschema.Schema) {
	switch {
	case def == "":
		v.Definition = generic
		return v, s.defs[generic]
	case wholeResponse(def):
		v.Definition = def
		return v, s.defs[def]
	}
	v.Definition = def
	return v, s.wrappers[wrapperKey(v.Kind, def)]
}

var printer = message.NewPrinter(language.English)

// judge validates doc against sch and fills v with the most specific
// failure: the deepest place in the message that broke a rule.
func (s *Schema) judge(v Violation, sch *jsonschema.Schema, doc any) *Violation {
	err := sch.Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		v.Keyword, v.Reason = "validation", err.Error()
		return &v
	}
	leaf := deepest(ve)
	v.Pointer = pointer(leaf.InstanceLocation)
	path := leaf.ErrorKind.KeywordPath()
	v.Keyword = "schema"
	if len(path) > 0 {
		v.Keyword = path[0]
	}
	v.Location = strings.TrimPrefix(leaf.SchemaURL, baseURL)
	if len(path) > 0 {
		if !strings.Contains(v.Location, "#") {
			v.Location += "#"
		}
		v.Location += pointer(path)
	}
	v.Reason = leaf.ErrorKind.LocalizedString(printer)
	return &v
}

// deepest returns the failure nearest the fault: the deepest leaf, except
// that among the alternatives of anyOf and oneOf it follows the branch the
// message most nearly matches (see closest).
func deepest(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return e
	}
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		return deepest(closest(e.Causes))
	}
	var best *jsonschema.ValidationError
	for _, c := range e.Causes {
		if leaf := deepest(c); best == nil || len(leaf.InstanceLocation) > len(best.InstanceLocation) {
			best = leaf
		}
	}
	return best
}

// closest is the alternative the message most nearly matches: one whose
// discriminator (a const, such as a content block's type) holds, with the
// fewest failures; the first of equals.
func closest(branches []*jsonschema.ValidationError) *jsonschema.ValidationError {
	best, bestScore := branches[0], score(branches[0])
	for _, b := range branches[1:] {
		if sc := score(b); sc < bestScore {
			best, bestScore = b, sc
		}
	}
	return best
}

// score ranks a failed alternative: a broken const counts as a mismatch of
// kind, far worse than any number of other failures.
func score(e *jsonschema.ValidationError) int {
	if len(e.Causes) == 0 {
		if _, ok := e.ErrorKind.(*kind.Const); ok {
			return 1 << 20
		}
		return 1
	}
	n := 0
	for _, c := range e.Causes {
		n += score(c)
	}
	return n
}

// pointer renders tokens as a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
