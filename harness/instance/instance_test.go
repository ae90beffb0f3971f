package instance

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestArguments: required properties get values of their schema (default,
// const, enum, examples first; local $refs followed, a network $ref never),
// optional ones none; no schema gives {}.
func TestArguments(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         map[string]any
	}{
		{"no schema", ``, map[string]any{}},
		{"object without properties", `{"type":"object"}`, map[string]any{}},
		{"numbers", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer","minimum":5},"c":{"type":"string"}},"required":["a","b"]}`,
			map[string]any{"a": 1.0, "b": int64(5)}},
		{"default enum example const", `{"properties":{"d":{"type":"string","default":"x"},"e":{"enum":["p","q"]},"x":{"type":"integer","examples":[7]},"k":{"const":true}},"required":["d","e","x","k"]}`,
			map[string]any{"d": "x", "e": "p", "x": 7.0, "k": true}},
		{"local ref, network ref", `{"$defs":{"id":{"type":"string","pattern":"^[a-z]+$"}},"properties":{"id":{"$ref":"#/$defs/id"},"p":{"$ref":"http://127.0.0.1:1/x.json"}},"required":["id","p"]}`,
			map[string]any{"id": Text, "p": Text}},
		{"nested object and array", `{"properties":{"o":{"type":"object","properties":{"f":{"type":"boolean"}},"required":["f"]},"l":{"type":"array","items":{"type":"string","format":"email"},"minItems":1}},"required":["o","l"]}`,
			map[string]any{"o": map[string]any{"f": true}, "l": []any{"user@example.com"}}},
	} {
		if got := Arguments(json.RawMessage(tc.schema)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

// TestBrief: every top-level number or integer, required or not, is 1 (or
// its minimum) rather than its default; const and enum keep their value; the
// rest is as Arguments makes it.
func TestBrief(t *testing.T) {
	schema := `{"type":"object","properties":{"duration":{"type":"number","default":10},"steps":{"type":"integer","default":5,"minimum":2},
		"mode":{"type":"integer","enum":[7,8]},"prompt":{"type":"string"},"note":{"type":"string","default":"x"}},"required":["prompt","mode"]}`
	want := map[string]any{"duration": 1.0, "steps": int64(2), "mode": 7.0, "prompt": Text}
	if got := Brief(json.RawMessage(schema)); !reflect.DeepEqual(got, want) {
		t.Errorf("%#v, want %#v", got, want)
	}
	if got := Brief(nil); !reflect.DeepEqual(got, map[string]any{}) {
		t.Errorf("no schema: %#v, want {}", got)
	}
}

// TestForm: every property with a default gets it (SEP-1034), required ones
// without a default a value of their type, others nothing.
func TestForm(t *testing.T) {
	schema := `{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive"],"default":"active"},
		"verified":{"type":"boolean","default":true},"nick":{"type":"string"},"must":{"type":"boolean"}},"required":["must"]}`
	want := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true, "must": true}
	if got := Form(json.RawMessage(schema)); !reflect.DeepEqual(got, want) {
		t.Errorf("%#v, want %#v", got, want)
	}
}
