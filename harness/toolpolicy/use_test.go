package toolpolicy

import (
	"encoding/json"
	"sync"
	"testing"
)

func TestRecorderMergesWorkersAndCalledWins(t *testing.T) {
	var worker1, worker2, coordinator Recorder
	worker1.Called("echo")
	worker1.LeftAlone("get-env", WhyNotReadOnly)
	worker1.LeftAlone("fetch", WhyOpenWorld)
	worker2.Called("fetch") // named by the fixtures file in another check's lookup
	worker2.LeftAlone("get-env", WhyNotReadOnly)
	worker2.LeftAlone("zip", WhyUnsafe)
	worker2.Called("add")
	coordinator.Add(worker1.Use())
	coordinator.Add(worker2.Use())
	b, err := json.Marshal(coordinator.Use())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"called":["add","echo","fetch"],"left_alone":[{"name":"get-env","why":"not marked readOnlyHint: true"},{"name":"zip","why":"listed under unsafe: in the fixtures file"}]}`
	if string(b) != want {
		t.Errorf("merged use\n got %s\nwant %s", b, want)
	}
}

func TestRecorderIsTheSameWhateverTheOrder(t *testing.T) {
	var a, b Recorder
	a.LeftAlone("x", WhyNotReadOnly)
	a.LeftAlone("x", WhyNone)
	b.LeftAlone("x", WhyNone)
	b.LeftAlone("x", WhyNotReadOnly)
	if ga, gb := a.Use(), b.Use(); ga.LeftAlone[0] != gb.LeftAlone[0] {
		t.Errorf("the why depends on the order: %v and %v", ga.LeftAlone, gb.LeftAlone)
	}
}

func TestRecorderEmptyAndReset(t *testing.T) {
	var r Recorder
	b, _ := json.Marshal(r.Use())
	if string(b) != `{"called":[],"left_alone":[]}` {
		t.Errorf("an empty record is %s, want empty lists (not null)", b)
	}
	r.Called("echo")
	r.LeftAlone("env", WhyNotReadOnly)
	r.Reset()
	if u := r.Use(); len(u.Called)+len(u.LeftAlone) != 0 {
		t.Errorf("after Reset: %+v", u)
	}
}

func TestRecorderConcurrentChecks(t *testing.T) {
	var r Recorder
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Called("echo")
			r.LeftAlone("env", WhyNotReadOnly)
			_ = r.Use()
			if i%2 == 0 {
				r.Add(Use{Called: []string{"add"}})
			}
		}()
	}
	wg.Wait()
	if u := r.Use(); len(u.Called) != 2 || len(u.LeftAlone) != 1 {
		t.Errorf("use %+v, want echo and add called, env left alone", u)
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		use  Use
		want string
	}{
		{Use{}, "tools called: none"},
		{Use{Called: []string{"add", "echo"}}, "tools called: add, echo"},
		{Use{Called: []string{"echo"}, LeftAlone: []LeftAlone{{"env", WhyNotReadOnly}}},
			"tools called: echo; left alone: env (not marked readOnlyHint: true; allow with --call-tools all, or name the tool in --fixtures)"},
	} {
		if got := tc.use.Summary(); got != tc.want {
			t.Errorf("Summary(%+v)\n got %q\nwant %q", tc.use, got, tc.want)
		}
	}
}
