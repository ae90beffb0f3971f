package fuzz

import (
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// unusualStrings are the strings that break parsers, renderers and
// shells: empty, NUL, control characters, bidirectional overrides, emoji
// and combining marks, very long, quotes and escapes, paths and formats.
var unusualStrings = []string{
	"", " ", "\x00", "a\x00b", "\t\r\n", "\u202eevil", "\u200b", "😀👍🏽", "e\u0301\u0301\u0301",
	strings.Repeat("x", 70000), `"quoted"`, `\`, "'; DROP TABLE tools; --", "../../../../etc/passwd",
	"%s%n%x", "${HOME}", "$(id)", "null", "true", "0", "-1", "1e309", "NaN", "\uFFFD", "\U0010FFFF",
}

// value is a generated JSON value. (gopter's Map takes a mapper that
// returns an interface for one that returns a *GenResult, so values travel
// wrapped.)
type value struct{ v any }

// argsGen generates tool arguments from the tool's inputSchema: valid
// ones, or (invalid) just-invalid ones: one required property dropped, one
// property of the wrong type, one string just outside its minLength,
// maxLength, pattern or enum, or one property the schema does not allow
// (additionalProperties: false).
func argsGen(schema map[string]any, invalid bool) gopter.Gen {
	root := schema
	valid := valueGen(root, schema, 0)
	if !invalid {
		return valid
	}
	return gopter.CombineGens(valid, gen.IntRange(0, 2), gen.IntRange(0, 1<<16)).Map(func(v []any) value {
		args, _ := v[0].(value).v.(map[string]any)
		if args == nil {
			args = map[string]any{}
		}
		out := make(map[string]any, len(args)+1)
		for k, val := range args {
			out[k] = val
		}
		props := sortedKeys(asMap(schema["properties"]))
		required := asStrings(schema["required"])
		n := v[2].(int)
		if len(props) > 0 && n%4 == 0 {
			p := props[(n/4)%len(props)]
			if bad, ok := violating(asMap(asMap(schema["properties"])[p])); ok {
				out[p] = bad
				return value{out}
			}
		}
		switch v[1].(int) {
		case 0:
			if len(required) > 0 {
				delete(out, required[n%len(required)])
				return value{out}
			}
			fallthrough
		case 1:
			if len(props) > 0 {
				p := props[n%len(props)]
				out[p] = wrongType(asMap(asMap(schema["properties"])[p]))
				return value{out}
			}
		}
		if schema["additionalProperties"] == false || len(props) == 0 {
			out["mcpconform_unexpected"] = n
			return value{out}
		}
		p := props[n%len(props)]
		out[p] = wrongType(asMap(asMap(schema["properties"])[p]))
		return value{out}
	})
}

// valueGen generates a value that schema accepts, as far as a small
// reading of JSON Schema goes: type, enum, const, properties, required,
// items, minimum and maximum, $ref into $defs.
func valueGen(root, schema map[string]any, depth int) gopter.Gen {
	if ref, ok := schema["$ref"].(string); ok && depth < 8 {
		if target := resolve(root, ref); target != nil {
			return valueGen(root, target, depth+1)
		}
	}
	if c, ok := schema["const"]; ok {
		return gen.Const(value{c})
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return gen.IntRange(0, len(enum)-1).Map(func(i int) value { return value{enum[i]} })
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := schema[key].([]any); ok && len(alts) > 0 && depth < 8 {
			return gen.IntRange(0, len(alts)-1).FlatMap(func(i any) gopter.Gen {
				return valueGen(root, asMap(alts[i.(int)]), depth+1)
			}, reflect.TypeOf(value{}))
		}
	}
	typ, _ := schema["type"].(string)
	if types, ok := schema["type"].([]any); ok && len(types) > 0 {
		typ, _ = types[0].(string)
	}
	if typ == "" && schema["properties"] != nil {
		typ = "object"
	}
	switch typ {
	case "object":
		return objectGen(root, schema, depth)
	case "array":
		if depth > 6 {
			return gen.Const(value{[]any{}})
		}
		return gen.SliceOfN(3, valueGen(root, asMap(schema["items"]), depth+1)).Map(func(vs []value) value {
			out := make([]any, len(vs))
			for i, v := range vs {
				out[i] = v.v
			}
			return value{out}
		})
	case "integer":
		lo, hi := bound(schema["minimum"], -1000), bound(schema["maximum"], 1000)
		if lo > hi {
			lo, hi = hi, lo
		}
		return gen.Int64Range(int64(lo), int64(hi)).Map(func(n int64) value { return value{n} })
	case "number":
		return gen.Float64Range(bound(schema["minimum"], -1000), bound(schema["maximum"], 1000)).Map(func(f float64) value { return value{f} })
	case "boolean":
		return gen.Bool().Map(func(b bool) value { return value{b} })
	case "null":
		return gen.Const(value{})
	case "string":
		return stringGen(schema)
	}
	return gen.OneGenOf(stringGen(schema), gen.Const(value{}))
}

// formats are valid strings of the formats tools use most.
var formats = map[string][]string{
	"uri":       {"https://example.com/mcpconform", "file:///tmp/x", "urn:x"},
	"url":       {"https://example.com/mcpconform"},
	"email":     {"fuzz@example.com", "a.b+c@example.org"},
	"date":      {"2025-06-18", "1970-01-01"},
	"date-time": {"2025-06-18T12:00:00Z", "1970-01-01T00:00:00.5+01:00"},
	"time":      {"12:00:00Z"},
	"uuid":      {"123e4567-e89b-12d3-a456-426614174000"},
	"ipv4":      {"127.0.0.1"},
	"ipv6":      {"::1"},
	"hostname":  {"example.com"},
}

// stringGen draws a string the schema's format, pattern, minLength and
// maxLength accept: one of the format, one its pattern generates, else an
// unusual string one time in three or a word, each brought within the
// length bounds.
func stringGen(schema map[string]any) gopter.Gen {
	if f, _ := schema["format"].(string); formats[f] != nil {
		fs := formats[f]
		return gen.IntRange(0, len(fs)-1).Map(func(i int) value { return value{fs[i]} })
	}
	lo, hi := int(bound(schema["minLength"], 0)), int(bound(schema["maxLength"], -1))
	if pat, _ := schema["pattern"].(string); pat != "" {
		if re, err := regexp.Compile(pat); err == nil {
			return patternGen(re, lo, hi)
		}
	}
	fit := func(s string) value { return value{fitLength(s, lo, hi)} }
	return gen.Weighted([]gen.WeightedGen{
		{Weight: 2, Gen: gen.AlphaString().Map(fit)},
		{Weight: 1, Gen: gen.IntRange(0, len(unusualStrings)-1).Map(func(i int) value { return fit(unusualStrings[i]) })},
	})
}

// patternGen draws a string re matches (gopter's generator of a regular
// expression's strings), and one within the length bounds when it can;
// a pattern it cannot satisfy gets "".
func patternGen(re *regexp.Regexp, lo, hi int) gopter.Gen {
	matches := gen.RegexMatch(re.String())
	return func(p *gopter.GenParameters) *gopter.GenResult {
		for range 8 {
			v, ok := matches(p).Retrieve()
			if s, _ := v.(string); ok && re.MatchString(s) && fitLength(s, lo, hi) == s {
				return gopter.NewGenResult(value{s}, gopter.NoShrinker)
			}
		}
		return gopter.NewGenResult(value{""}, gopter.NoShrinker)
	}
}

// fitLength pads s with "x" to lo characters and cuts it to hi (hi < 0:
// no bound), counting characters as JSON Schema does (code points).
func fitLength(s string, lo, hi int) string {
	r := []rune(s)
	for len(r) < lo {
		r = append(r, 'x')
	}
	if hi >= 0 && len(r) > hi {
		r = r[:hi]
	}
	return string(r)
}

// violating is a value just outside the string schema's bounds: one
// character past maxLength, one short of minLength, one its pattern does
// not match, one outside its enum; ok false when it has none.
func violating(schema map[string]any) (any, bool) {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return "mcpconform-not-in-enum", true
	}
	if schema["type"] != "string" {
		return nil, false
	}
	if hi := int(bound(schema["maxLength"], -1)); hi >= 0 {
		return strings.Repeat("x", hi+1), true
	}
	if lo := int(bound(schema["minLength"], 0)); lo > 0 {
		return strings.Repeat("x", lo-1), true
	}
	if pat, _ := schema["pattern"].(string); pat != "" {
		if re, err := regexp.Compile(pat); err == nil {
			for _, s := range []string{"", "\x00 !", "mcpconform-not-matching"} {
				if !re.MatchString(s) {
					return s, true
				}
			}
		}
	}
	return nil, false
}

// objectGen generates every required property and each optional one half
// the time.
func objectGen(root, schema map[string]any, depth int) gopter.Gen {
	props := asMap(schema["properties"])
	names := sortedKeys(props)
	if len(names) == 0 || depth > 6 {
		return gen.Const(value{map[string]any{}})
	}
	required := map[string]bool{}
	for _, r := range asStrings(schema["required"]) {
		required[r] = true
	}
	gens := make([]gopter.Gen, 0, 2*len(names)+2)
	for _, n := range names {
		gens = append(gens, valueGen(root, asMap(props[n]), depth+1), gen.Bool())
	}
	// additionalProperties as a schema lets one more property in, of it.
	extra := asMap(schema["additionalProperties"])
	if extra != nil {
		gens = append(gens, valueGen(root, extra, depth+1), gen.Bool())
	}
	return gopter.CombineGens(gens...).Map(func(v []any) value {
		out := map[string]any{}
		for i, n := range names {
			if required[n] || v[2*i+1].(bool) {
				out[n] = v[2*i].(value).v
			}
		}
		if extra != nil && v[2*len(names)+1].(bool) {
			out["mcpconform_extra"] = v[2*len(names)].(value).v
		}
		return value{out}
	})
}

// wrongType is a value of another type than the schema's.
func wrongType(schema map[string]any) any {
	switch schema["type"] {
	case "string":
		return 12345
	case "integer", "number":
		return "not a number"
	case "boolean":
		return "yes"
	case "array":
		return map[string]any{"not": "an array"}
	case "object":
		return []any{"not", "an", "object"}
	}
	return []any{nil}
}

// resolve follows a local $ref ("#/$defs/name", "#/definitions/name").
func resolve(root map[string]any, ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	node := any(root)
	for _, part := range strings.Split(ref[2:], "/") {
		node = asMap(node)[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
	}
	m, _ := node.(map[string]any)
	return m
}

func bound(v any, def float64) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return def
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asStrings(v any) []string {
	var out []string
	for _, x := range asSlice(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
