package adapterhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadEnv(t *testing.T) {
	e, err := readEnv(envOf(map[string]string{
		EnvTransport: "stdio", EnvServerCommand: `["srv","--x"]`, EnvCallTimeoutMS: "250",
		EnvParallel: "1", EnvLimits: `{"max_stdout_text_lines":0}`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.ServerCommand) != 2 || e.CallTimeout != 250*time.Millisecond || !e.Parallel || e.Limits["max_stdout_text_lines"] != 0 || len(e.Limits) != 1 {
		t.Fatalf("readEnv = %+v", e)
	}
	for name, m := range map[string]map[string]string{
		"no transport":  {},
		"empty argv":    {EnvTransport: "stdio", EnvServerCommand: `[]`},
		"no url":        {EnvTransport: "http"},
		"bad timeout":   {EnvTransport: "http", EnvServerURL: "http://x", EnvCallTimeoutMS: "-1"},
		"bad headers":   {EnvTransport: "http", EnvServerURL: "http://x", EnvHeaders: `["a"]`},
		"bad transport": {EnvTransport: "sse"},
		"bad era":       {EnvTransport: "http", EnvServerURL: "http://x", EnvEra: "2026"},
		"bad sampling":  {EnvTransport: "http", EnvServerURL: "http://x", EnvSampling: "yes"},
		"bad action":    {EnvTransport: "http", EnvServerURL: "http://x", EnvElicitation: "maybe"},
		"bad roots":     {EnvTransport: "http", EnvServerURL: "http://x", EnvRoots: `{"uri":"file:///"}`},
		"root, no uri":  {EnvTransport: "http", EnvServerURL: "http://x", EnvRoots: `[{"name":"x"}]`},
	} {
		if _, err := readEnv(envOf(m)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	e, err = readEnv(envOf(map[string]string{
		EnvTransport: "http", EnvServerURL: "http://x", EnvSampling: `{"model":"m"}`,
		EnvElicitation: ElicitDecline, EnvRoots: `[{"uri":"file:///r","name":"r"}]`,
	}))
	if err != nil || e.Sampling != `{"model":"m"}` || e.Elicitation != ElicitDecline || len(e.Roots) != 1 || e.Roots[0] != (Root{URI: "file:///r", Name: "r"}) {
		t.Errorf("answers: %+v, %v", e, err)
	}
	if _, err := readEnv(envOf(map[string]string{EnvTransport: "sse"})); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown transport: %v, want ErrUnsupported", err)
	}
}

// fake is a Session whose tools "ok" succeed and "fail" return an error;
// "slow" waits for its context.
type fake struct {
	mu     sync.Mutex
	closed bool
}

func (f *fake) ListTools(context.Context) ([]string, error) {
	return []string{"ok", "fail", "slow"}, nil
}

func (f *fake) CallTool(ctx context.Context, name string) error {
	switch name {
	case "fail":
		return errors.New("boom")
	case "slow":
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (f *fake) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ls []map[string]any
	for _, raw := range strings.Split(strings.TrimSpace(out), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatalf("line %q: %v", raw, err)
		}
		ls = append(ls, l)
	}
	return ls
}

func TestRunPrintsEveryStep(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := &fake{}
		var out bytes.Buffer
		env := Env{Transport: "stdio", ServerCommand: []string{"x"}, CallTimeout: 50 * time.Millisecond, Parallel: parallel}
		Run(env, Plan{Config: map[string]int64{"max_sse_event_size": 7}, Connect: func(context.Context) (Session, error) { return f, nil }}, NewPrinter(&out))
		ls := lines(t, out.String())
		if len(ls) != 7 {
			t.Fatalf("parallel=%v: %d lines:\n%s", parallel, len(ls), out.String())
		}
		if _, ok := ls[0]["config"]; !ok {
			t.Errorf("first line %v, want config", ls[0])
		}
		if _, ok := ls[6]["close"]; !ok || !f.closed {
			t.Errorf("last line %v (closed %v), want close", ls[6], f.closed)
		}
		outcomes := map[string]string{}
		for _, l := range ls[3:6] {
			outcomes[l["tool"].(string)] = l["outcome"].(string)
		}
		if outcomes["ok"] != "ok" || outcomes["fail"] != "error" || outcomes["slow"] != "error" {
			t.Errorf("parallel=%v: outcomes %v", parallel, outcomes)
		}
		if !parallel && (ls[3]["tool"] != "ok" || ls[4]["tool"] != "fail" || ls[5]["tool"] != "slow") {
			t.Errorf("calls out of order: %v", ls[3:6])
		}
	}
}

// eraFake is a fake that says which era it connected in.
type eraFake struct{ fake }

func (*eraFake) Era() string { return EraModern }

func TestRunDeclaresErasAndNamesTheChosenOne(t *testing.T) {
	e, err := readEnv(envOf(map[string]string{EnvTransport: "http", EnvServerURL: "http://x", EnvEra: EraModern}))
	if err != nil || e.Era != EraModern {
		t.Fatalf("readEnv = %+v, %v; want era modern", e, err)
	}
	var out bytes.Buffer
	Run(Env{CallTimeout: 50 * time.Millisecond}, Plan{Eras: []string{EraLegacy, EraModern}, Connect: func(context.Context) (Session, error) { return &eraFake{}, nil }}, NewPrinter(&out))
	ls := lines(t, out.String())
	eras, _ := ls[0]["config"].(map[string]any)["eras"].([]any)
	if len(eras) != 2 || eras[0] != EraLegacy || eras[1] != EraModern {
		t.Errorf("config line %v, want eras [legacy modern]", ls[0])
	}
	if era := ls[1]["connect"].(map[string]any)["era"]; era != EraModern {
		t.Errorf("connect line %v, want era modern", ls[1])
	}
}

// listenFake is a fake whose client opened a subscription (or not) with
// the library's verdict err.
type listenFake struct {
	fake
	opened bool
	err    error
}

func (l *listenFake) Listen(context.Context) (bool, error) { return l.opened, l.err }

func TestRunReportsTheSubscriptionOnly(t *testing.T) {
	for _, tc := range []struct {
		f    *listenFake
		want string // the listen line's outcome, "" for none
	}{
		{&listenFake{opened: true}, "ok"},
		{&listenFake{opened: true, err: errors.New("refused")}, "error"},
		{&listenFake{}, ""},
	} {
		var out bytes.Buffer
		Run(Env{CallTimeout: 50 * time.Millisecond}, Plan{Connect: func(context.Context) (Session, error) { return tc.f, nil }}, NewPrinter(&out))
		ls := lines(t, out.String())
		listen, ok := ls[1]["listen"].(map[string]any)
		switch {
		case tc.want == "" && ok:
			t.Errorf("no subscription: line %v, want none", ls[1])
		case tc.want != "" && (!ok || listen["outcome"] != tc.want):
			t.Errorf("subscription (err %v): line %v, want a listen line with outcome %s", tc.f.err, ls[1], tc.want)
		}
		if _, ok := ls[len(ls)-1]["close"]; !ok {
			t.Errorf("last line %v, want close", ls[len(ls)-1])
		}
	}
}

func TestRunConnectFailure(t *testing.T) {
	var out bytes.Buffer
	Run(Env{}, Plan{Connect: func(context.Context) (Session, error) { return nil, errors.New("no") }}, NewPrinter(&out))
	ls := lines(t, out.String())
	if len(ls) != 1 || ls[0]["connect"].(map[string]any)["outcome"] != "error" {
		t.Fatalf("lines %v, want one failed connect", ls)
	}
}

func TestExitStatus(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := envOf(map[string]string{EnvTransport: "http", EnvServerURL: "http://127.0.0.1:1/mcp", EnvHeaders: `{"X":"y"}`})
	unsupported := func(e Env) (Plan, error) { return Plan{}, Unsupported("headers %v", e.Headers) }
	if got := run("t", env, &stdout, &stderr, unsupported); got != ExitUnsupported {
		t.Errorf("unsupported: exit %d, want %d", got, ExitUnsupported)
	}
	if got := run("t", envOf(nil), &stdout, &stderr, unsupported); got != ExitUsage {
		t.Errorf("no transport: exit %d, want %d", got, ExitUsage)
	}
	if err := RefuseLimits(map[string]int64{"a": 1}, func(string, int64) bool { return false }); !errors.Is(err, ErrUnsupported) {
		t.Errorf("RefuseLimits: %v", err)
	}
}

func TestFormDefaults(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string", "default": "x"},
		"n":    map[string]any{"type": "integer"},
		"on":   map[string]any{"type": "boolean", "default": false},
	}}
	got, _ := json.Marshal(FormDefaults(schema))
	raw, _ := json.Marshal(FormDefaults(json.RawMessage(`{"properties":{"a":{"default":1}}}`)))
	if string(got) != `{"name":"x","on":false}` || string(raw) != `{"a":1}` || len(FormDefaults(nil)) != 0 {
		t.Errorf("FormDefaults = %s, %s", got, raw)
	}
}
