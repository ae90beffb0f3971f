package wireschema

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The 2026-07-28 examples are the specification's own valid values, one
// folder per definition: each must validate against its definition, and
// each whole message must be judged by that same definition.
func TestExamplesValidateAgainstTheirDefinition(t *testing.T) {
	s := mustFor(t, Modern)
	paths, err := fs.Glob(files, "schema/"+Modern+"/examples/*/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no embedded examples: %v", err)
	}
	for _, p := range paths {
		def := path.Base(path.Dir(p))
		raw, _ := files.ReadFile(p)
		v, err := s.ValidateDefinition(def, raw)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if v != nil {
			t.Errorf("%s: %v", p, v)
		}
	}
}

func TestExampleMessagesPickTheirDefinition(t *testing.T) {
	s := mustFor(t, Modern)
	answers := map[string]string{} // FooResultResponse → the method of FooRequest
	for method, def := range s.targets.results {
		answers[def] = method
	}
	paths, _ := fs.Glob(files, "schema/"+Modern+"/examples/*/*.json")
	var messages int
	for _, p := range paths {
		def := path.Base(path.Dir(p))
		raw, _ := files.ReadFile(p)
		var probe map[string]json.RawMessage
		if json.Unmarshal(raw, &probe) != nil || probe["jsonrpc"] == nil {
			continue
		}
		messages++
		if v := s.Validate(raw, answers[def]); v != nil {
			t.Errorf("%s: %v", p, v)
		}
		if got := s.judged(t, raw, answers[def]); got != def {
			t.Errorf("%s: judged by %s, want %s", p, got, def)
		}
	}
	t.Logf("%d example messages", messages)
	if messages < 10 {
		t.Fatalf("only %d example messages found", messages)
	}
}

// judged is the definition a message is checked against.
func (s *Schema) judged(t *testing.T, msg []byte, answers string) string {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.classify(doc, answers)
	return v.Definition
}

func mustFor(t testing.TB, version string) *Schema {
	t.Helper()
	s, err := For(version)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
