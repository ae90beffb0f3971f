package wireschema

import (
	"errors"
	"strings"
	"testing"
)

func TestToolSchemaJudgesValues(t *testing.T) {
	for _, tc := range []struct {
		name, schema, value, want string // want: a part of the reason, "" valid
	}{
		{"2020-12 by default", `{"type":"object","properties":{"t":{"type":"number"}},"required":["t"]}`, `{"t":21.5}`, ""},
		{"a wrong type", `{"type":"object","properties":{"t":{"type":"number"}}}`, `{"t":"warm"}`, "/t: "},
		{"a missing property", `{"type":"object","required":["t"]}`, `{}`, "the value: missing property 't'"},
		{"draft-07 as declared", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false}`, `{"x":1}`, "additional"},
		{"prefixItems of 2020-12: valid", `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,2]`, ""},
		{"prefixItems of 2020-12: broken", `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `[1,2]`, "/0: "},
		{"$defs and $ref inside", `{"type":"object","$defs":{"n":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/n"}}}`, `{"n":1.5}`, "/n: "},
	} {
		s, err := CompileToolSchema([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := s.Validate([]byte(tc.value))
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: Validate(%s) = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestToolSchemaRefusesWhatIsNoSchema(t *testing.T) {
	for _, schema := range []string{`{"type":"strin"}`, `{"type":"object","required":"t"}`, `{"properties":[]}`, `not json`} {
		if _, err := CompileToolSchema([]byte(schema)); err == nil || errors.Is(err, ErrOutsideDocument) {
			t.Errorf("CompileToolSchema(%s) = %v, want an invalid schema", schema, err)
		}
	}
	for _, tc := range []struct {
		schema  string
		dialect bool
	}{
		{`{"$ref":"https://example.com/s.json"}`, false},
		{`{"type":"object","properties":{"p":{"$ref":"http://127.0.0.1:9/s.json"}}}`, false},
		{`{"$schema":"https://example.com/dialect","type":"object"}`, true},
		{`{"$schema":"https://example.com/dialect#","type":"object"}`, true},
	} {
		_, err := CompileToolSchema([]byte(tc.schema))
		if !errors.Is(err, ErrOutsideDocument) || errors.Is(err, ErrUnsupportedDialect) != tc.dialect {
			t.Errorf("CompileToolSchema(%s) = %v, want ErrOutsideDocument, ErrUnsupportedDialect %v", tc.schema, err, tc.dialect)
		}
	}
}
