// Package instance makes a valid instance of a JSON Schema, deterministically
// and without any network access: the arguments the reference adapter calls
// a tool with, and the content the reference client accepts an elicitation
// form with (its defaults applied, SEP-1034). It reads a small part of JSON
// Schema: default, const, enum, examples, type, properties, required, items,
// minItems, minimum, maximum, minLength, maxLength, format, allOf, anyOf,
// oneOf, and $ref into the same document ("#/…" JSON pointers). A $ref to
// any other document is never followed (SEP-2106): its value is made as for
// a schema that accepts anything.
package instance

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// maxDepth bounds how deep the instance nests (and how many $refs it follows
// in a row), so a recursive schema still ends.
const maxDepth = 8

// Text is the string an instance holds where the schema asks for no
// particular one.
const Text = "mcpconform"

// Arguments returns the arguments a tool with inputSchema is called with: an
// object holding each required property with a value of its schema (its
// default, const, first enum value or first example first). An absent or
// unreadable schema gives {}.
func Arguments(inputSchema json.RawMessage) map[string]any { return top(inputSchema, false) }

// Form returns the content an elicitation form with requestedSchema is
// accepted with: every property that has a default gets it, every other
// required property a value of its schema (EL-06, SEP-1034).
func Form(requestedSchema json.RawMessage) map[string]any { return top(requestedSchema, true) }

// Brief returns the arguments a tool is called with to learn what it does
// (the fixtures discovery): those of Arguments, but every top-level
// property of type number or integer, required or not, at 1 moved into its
// bounds instead of its default, so that a tool whose duration, size or
// count is a number runs briefly. A numeric property with const or enum
// keeps its value.
func Brief(inputSchema json.RawMessage) map[string]any {
	var root map[string]any
	_ = json.Unmarshal(inputSchema, &root) // not an object: no schema, {}
	out := object(root, root, false, 0)
	props, _ := deref(root, root, 0)["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		ps = deref(root, ps, 1)
		if _, fixed := ps["const"]; fixed || ps["enum"] != nil {
			continue
		}
		switch ps["type"] {
		case "integer":
			out[name] = int64(between(1, ps))
		case "number":
			out[name] = between(1, ps)
		}
	}
	return out
}

// top is the object instance of a schema document.
func top(raw json.RawMessage, defaults bool) map[string]any {
	var root map[string]any
	_ = json.Unmarshal(raw, &root) // not an object: no schema, {}
	return object(root, root, defaults, 0)
}

// object is the object instance of schema: its required properties, and with
// defaults also every property that has a default.
func object(root, schema map[string]any, defaults bool, depth int) map[string]any {
	schema = deref(root, schema, depth)
	props, _ := schema["properties"].(map[string]any)
	out := map[string]any{}
	for _, name := range required(schema) {
		ps, _ := props[name].(map[string]any)
		out[name] = value(root, ps, depth+1)
	}
	if defaults {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			ps, _ := props[name].(map[string]any)
			if d, ok := ps["default"]; ok {
				out[name] = d
			}
		}
	}
	for _, sub := range asSlice(schema["allOf"]) {
		if s, ok := sub.(map[string]any); ok && depth < maxDepth {
			for k, v := range object(root, s, defaults, depth+1) {
				if _, set := out[k]; !set {
					out[k] = v
				}
			}
		}
	}
	return out
}

// value is a value schema accepts.
func value(root, schema map[string]any, depth int) any {
	schema = deref(root, schema, depth)
	if schema == nil || depth > maxDepth {
		return Text
	}
	for _, key := range []string{"default", "const"} {
		if v, ok := schema[key]; ok {
			return v
		}
	}
	for _, key := range []string{"enum", "examples"} {
		if s := asSlice(schema[key]); len(s) > 0 {
			return s[0]
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if s := asSlice(schema[key]); len(s) > 0 {
			if first, ok := s[0].(map[string]any); ok {
				return value(root, first, depth+1)
			}
		}
	}
	switch typeOf(schema) {
	case "object":
		return object(root, schema, false, depth)
	case "array":
		items, _ := schema["items"].(map[string]any)
		out := []any{}
		for range int(number(schema["minItems"], 0)) {
			out = append(out, value(root, items, depth+1))
		}
		return out
	case "integer":
		return int64(between(1, schema))
	case "number":
		return between(1, schema)
	case "boolean":
		return true
	case "null":
		return nil
	}
	return text(schema)
}

// typeOf is the schema's type (the first that is not null of a list), or
// object when it has properties and no type.
func typeOf(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" {
				return s
			}
		}
	}
	if _, ok := schema["properties"]; ok {
		return "object"
	}
	if _, ok := schema["required"]; ok {
		return "object"
	}
	return "string"
}

// text is a string of schema's format and length bounds.
func text(schema map[string]any) string {
	s := Text
	switch schema["format"] {
	case "email":
		s = "user@example.com"
	case "uri", "url", "iri":
		s = "https://example.com/"
	case "date":
		s = "2026-01-01"
	case "date-time":
		s = "2026-01-01T00:00:00Z"
	case "time":
		s = "00:00:00Z"
	case "uuid":
		s = "00000000-0000-4000-8000-000000000000"
	}
	if min := int(number(schema["minLength"], 0)); len(s) < min {
		s += strings.Repeat("x", min-len(s))
	}
	if max, ok := schema["maxLength"].(float64); ok && len(s) > int(max) {
		s = s[:int(max)]
	}
	return s
}

// between is v moved into the schema's minimum and maximum.
func between(v float64, schema map[string]any) float64 {
	if min, ok := schema["minimum"].(float64); ok && v < min {
		v = min
	}
	if max, ok := schema["maximum"].(float64); ok && v > max {
		v = max
	}
	return v
}

// deref follows schema's $ref while it points into the same document.
func deref(root, schema map[string]any, depth int) map[string]any {
	for i := depth; schema != nil && i < maxDepth; i++ {
		ref, ok := schema["$ref"].(string)
		if !ok {
			return schema
		}
		if !strings.HasPrefix(ref, "#") {
			return map[string]any{} // another document: never fetched
		}
		schema = pointer(root, ref[1:])
	}
	return schema
}

// pointer resolves a JSON pointer (RFC 6901) in root; nil when it leads
// nowhere.
func pointer(root map[string]any, p string) map[string]any {
	var cur any = root
	if p == "" {
		return root
	}
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

func required(schema map[string]any) []string {
	var out []string
	for _, v := range asSlice(schema["required"]) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func number(v any, def float64) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return def
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
