package http

import (
	"encoding/json"
	"testing"
)

// An argument is mirrored as its text: strings as they are, numbers in
// decimal, booleans as true or false; absent or null, not at all.
func TestMirroredValue(t *testing.T) {
	for raw, want := range map[string]string{`"café"`: "café", `42`: "42", `-7`: "-7", `true`: "true", `null`: "", ``: "", `{"a":1}`: ""} {
		if got := mirroredValue(json.RawMessage(raw)); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}
