package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/serve"
)

// list --mutants names every mutant and variant that --mutant accepts, each
// of its role, kind and killers: what a script iterating the mutants
// (peers/official/cross-check.sh) reads instead of the Go catalogue.
func TestListMutantsJSONNamesWhatMutantAccepts(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"list", "--mutants", "--format", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got struct{ Mutants []mutantEntry }
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range got.Mutants {
		kinds[e.Kind]++
		if n, err := mutant.Parse(e.Role, string(e.Name)); err != nil || n != e.Name {
			t.Errorf("%s (%s): --mutant of its role refuses it: %v", e.Name, e.Role, err)
		}
		if e.Role == "server" && e.Transport != "any" && e.Transport != "http" {
			t.Errorf("%s: a server mutant or variant of transport %q, want any or http", e.Name, e.Transport)
		}
		if want := map[bool]string{true: "modern"}[serve.ModernOnly(e.Name)]; e.Era != want {
			t.Errorf("%s: era %q, want %q (what serve --mutant serves)", e.Name, e.Era, want)
		}
		switch {
		case e.Kind == kindPlanted && !mutant.IsPlanted(e.Name):
			t.Errorf("%s: listed as planted, but the fuzzer's catalogue does not plant it", e.Name)
		case e.Kind == kindMutant && len(e.KilledBy) == 0:
			t.Errorf("%s: a mutant that no check kills", e.Name)
		case e.Kind == kindVariant && len(e.PermittedBy) == 0:
			t.Errorf("%s: a variant with no rule that permits it", e.Name)
		}
	}
	want := map[string]int{kindMutant: len(mutant.ForRole("client")) + len(mutant.ForRole("server")), kindPlanted: len(mutant.Planted()),
		kindVariant: len(mutant.Variants())}
	for kind, n := range want {
		if kinds[kind] != n {
			t.Errorf("%d entries of kind %s, want %d", kinds[kind], kind, n)
		}
	}
}
