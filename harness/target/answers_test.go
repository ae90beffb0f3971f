package target

import (
	"slices"
	"testing"
)

func TestReadAnswers(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	good := map[string]string{EnvSampling: `{"role":"assistant"}`, EnvSamplingTools: "1", EnvElicitation: ElicitCancel, EnvRoots: `[{"uri":"file:///a","name":"a"}]`}
	a, err := ReadAnswers(env(good))
	if err != nil || !a.SamplingTools || a.Elicitation != ElicitCancel || len(a.Roots) != 1 || a.Roots[0].URI != "file:///a" {
		t.Fatalf("ReadAnswers(%v) = %+v, %v", good, a, err)
	}
	if got := a.environ(); !slices.Contains(got, EnvRoots+`=[{"uri":"file:///a","name":"a"}]`) || len(got) != 4 {
		t.Errorf("environ() = %q", got)
	}
	if a, err := ReadAnswers(env(nil)); err != nil || a.environ() != nil {
		t.Errorf("no variables: %+v, %v; want no answers", a, err)
	}
	for _, bad := range []map[string]string{{EnvSampling: "yes"}, {EnvSampling: "[]"}, {EnvElicitation: "ok"}, {EnvRoots: "{}"}, {EnvRoots: `[{"name":"a"}]`},
		{EnvSamplingTools: "1"}, {EnvSampling: "reject", EnvSamplingTools: "yes"}} {
		if _, err := ReadAnswers(env(bad)); err == nil {
			t.Errorf("ReadAnswers(%v) accepted", bad)
		}
	}
}
