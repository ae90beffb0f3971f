package mutant

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/rules"
)

// TestVariantsArePermittedBySpecRules: a variant names the specification
// rules that permit it, each in the rule table as a spec rule (of either
// side: HT-50 lets the server choose, so a client may refuse its choice);
// and its name is not a mutant's.
func TestVariantsArePermittedBySpecRules(t *testing.T) {
	for _, v := range Variants() {
		if v.Role != "client" && v.Role != "server" {
			t.Errorf("variant %s: role %q is not client or server", v.Name, v.Role)
		}
		if v.Transport != "stdio" && v.Transport != "http" && v.Transport != "any" {
			t.Errorf("variant %s: transport %q is not stdio, http or any", v.Name, v.Transport)
		}
		if len(v.PermittedBy) == 0 || v.Description == "" {
			t.Errorf("variant %s: name the spec rules that permit it and describe it", v.Name)
		}
		for _, id := range v.PermittedBy {
			r, ok := rules.Lookup(id)
			switch {
			case !ok:
				t.Errorf("variant %s: rule %s is not in the rule table", v.Name, id)
			case r.Source != rules.Spec:
				t.Errorf("variant %s: rule %s is a %s rule; only the specification permits a variant", v.Name, id, r.Source)
			}
		}
		for _, m := range All() {
			if m.Name == v.Name {
				t.Errorf("%s is both a mutant and a variant", v.Name)
			}
		}
	}
}

func TestParseAcceptsVariantsOfTheRole(t *testing.T) {
	if n, err := Parse("client", string(NoSSECap)); err != nil || n != NoSSECap {
		t.Errorf("Parse(client, %s) = %q, %v", NoSSECap, n, err)
	}
	if _, err := Parse("server", string(NoSSECap)); err == nil {
		t.Errorf("Parse(server, %s) accepted a client variant", NoSSECap)
	}
	if !OfServerProtocol(LogsBeforeSetLevel) || OfServerProtocol(JSONResponses) {
		t.Errorf("OfServerProtocol: %s varies the MCP server, %s the HTTP transport", LogsBeforeSetLevel, JSONResponses)
	}
}
