package serve

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/stdiotarget"
)

// TestPlantedSetsidChild: torn down as a client does, the reference leaves
// no process of its tree alive; mutant PlantedSetsidChild leaves its child,
// which left the server's group for a session of its own.
func TestPlantedSetsidChild(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.PlantedSetsidChild} {
		args := []string{"--transport", "stdio"}
		if m != "" {
			args = append(args, "--mutant", string(m))
		}
		s, err := stdiotarget.Start(selfexec.Command("serve", args...), stdiotarget.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.Messages():
		case <-timeAfter(waitLimit):
			t.Fatalf("mutant %q: no answer to a ping", m)
		}
		left := s.Stop(quietWindow)
		s.Kill()
		if got, want := len(left), map[bool]int{true: 0, false: 1}[m == ""]; got != want {
			t.Errorf("mutant %q: %v outlived the teardown; want %d process(es)", m, left, want)
		}
	}
}
