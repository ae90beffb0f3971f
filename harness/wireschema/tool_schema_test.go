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
	for _, schema := range []string{`{"$ref":"https://example.com/s.json"}`, `{"$schema":"https://example.com/dialect","type":"object"}`} {
		if _, err := CompileToolSchema([]byte(schema)); !errors.Is(err, ErrOutsideDocument) {
			t.Errorf("CompileToolSchema(%s) = %v, want ErrOutsideDocument", schema, err)
		}
	}
}
