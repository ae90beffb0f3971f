package mutant

import "testing"

func TestPlantedAreServerMutantsOutsideTheSuiteMatrix(t *testing.T) {
	got := Planted()
	if len(got) != 9 {
		t.Fatalf("Planted() = %v, want the nine planted bugs", got)
	}
	for _, m := range got {
		if n, err := Parse("server", string(m.Name)); err != nil || n != m.Name {
			t.Errorf("Parse(server, %s) = %q, %v", m.Name, n, err)
		}
		if !OfServerProtocol(m.Name) || !m.Planted() || m.Role != "server" || m.Description == "" {
			t.Errorf("%s: OfServerProtocol %v, Planted %v, role %q", m.Name, OfServerProtocol(m.Name), m.Planted(), m.Role)
		}
	}
	for _, m := range ForRole("server") {
		if m.Planted() {
			t.Errorf("ForRole(server), the self-test's matrix, lists planted bug %s", m.Name)
		}
	}
}
