package fuzz

import (
	"encoding/json"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// TestArgsHonourAndJustBreakTheSchema: arguments generated valid conform to
// an inputSchema with minLength, maxLength, pattern, format, enum and
// additionalProperties; those generated invalid do not.
func TestArgsHonourAndJustBreakTheSchema(t *testing.T) {
	raw := `{"type":"object","additionalProperties":false,"required":["code","name","kind","when","mail"],"properties":{
		"code":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{2}$"},
		"name":{"type":"string","minLength":3,"maxLength":5},
		"kind":{"type":"string","enum":["a","b"]},
		"when":{"type":"string","format":"date"},
		"mail":{"type":"string","format":"email"},
		"tags":{"type":"object","additionalProperties":{"type":"integer"}}}}`
	var schema map[string]any
	if err := json.Unmarshal([]byte(raw), &schema); err != nil {
		t.Fatal(err)
	}
	compiled, err := wireschema.CompileToolSchema([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, invalid := range []bool{false, true} {
		valid := 0
		for seed := int64(0); seed < 200; seed++ {
			v, ok := argsGen(schema, invalid)(gopter.DefaultGenParameters().CloneWithSeed(seed)).Retrieve()
			if !ok {
				t.Fatalf("seed %d: no value", seed)
			}
			b, err := json.Marshal(v.(value).v)
			if err != nil {
				t.Fatalf("seed %d: %v: %#v", seed, err, v)
			}
			if compiled.Validate(b) == "" {
				valid++
			} else if !invalid {
				t.Errorf("seed %d: valid arguments %s break the schema: %s", seed, b, compiled.Validate(b))
			}
		}
		if invalid && valid > 0 {
			t.Errorf("%d of 200 invalid arguments conform to the schema", valid)
		}
	}
}
