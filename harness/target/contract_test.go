package target

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseOutputReadsEveryContractLine(t *testing.T) {
	out := ParseOutput([]byte(`{"config":{"max_stdout_text_lines":7,"cancel_grace_ms":"x"}}
{"connect":{"outcome":"ok","elapsed_ms":3}}
{"list":{"outcome":"ok","elapsed_ms":1}}
{"tool":"a","outcome":"ok","elapsed_ms":2}
banner text
{"tool":"b","outcome":"error","error":"boom","elapsed_ms":9}
{"other":1}
{"close":{"outcome":"error","error":"x","elapsed_ms":4}}
`))
	if n, ok := out.Int(LimitStdoutTextLines); !ok || n != 7 {
		t.Errorf("lines limit = %d, %v", n, ok)
	}
	if _, ok := out.Int(LimitCancelGraceMS); ok {
		t.Error("a non-integer limit was accepted")
	}
	if out.Connect == nil || out.List == nil || out.Close == nil || out.Close.Error != "x" {
		t.Errorf("phases: %+v %+v %+v", out.Connect, out.List, out.Close)
	}
	if len(out.Calls) != 2 || !out.Calls[0].OK() || out.Calls[1].OK() || out.Calls[1].Error != "boom" {
		t.Errorf("calls: %+v", out.Calls)
	}
	if len(out.Invalid) != 2 || strings.Contains(strings.Join(out.Invalid, " "), "banner") {
		t.Errorf("invalid lines %q: want two, described by length only", out.Invalid)
	}
	if want := len("banner text\n") + len(`{"other":1}`+"\n"); out.InvalidBytes != want {
		t.Errorf("invalid bytes %d, want %d", out.InvalidBytes, want)
	}
}

func TestBreachNamesTheBytesAndTheFirstLine(t *testing.T) {
	if b := ParseOutput([]byte(`{"tool":"a","outcome":"ok"}` + "\n")).Breach(); b != "" {
		t.Errorf("a contract line is a breach: %s", b)
	}
	garbage := append([]byte("\x01\x02 not json\n"), make([]byte, 4084)...)
	b := ParseOutput(garbage).Breach()
	if !strings.Contains(b, "printed 4096 bytes that are not contract lines") || !strings.Contains(b, "first line: non-JSON, 11 bytes") {
		t.Errorf("breach %q", b)
	}
	if b := ParseOutput([]byte(`{"tool":"a","outcome":"done"}`)).Breach(); !strings.Contains(b, `outcome "done"`) {
		t.Errorf("a tool line with an unknown outcome: %q", b)
	}
}

func TestInvocationEnvironment(t *testing.T) {
	env, err := Invocation{Case: "c", Transport: "stdio", ServerCommand: []string{"srv", "--x"}, CallTimeout: 1500 * time.Millisecond,
		Parallel: true, Limits: map[string]any{"max_stdout_text_lines": 0}}.environment()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MCPCONFORM_CASE=c", "MCPCONFORM_TRANSPORT=stdio", `MCPCONFORM_SERVER_COMMAND=["srv","--x"]`,
		"MCPCONFORM_CALL_TIMEOUT_MS=1500", "MCPCONFORM_PARALLEL=1", `MCPCONFORM_LIMITS={"max_stdout_text_lines":0}`} {
		if !slices.Contains(env, want) {
			t.Errorf("environment %q lacks %q", env, want)
		}
	}
}

func script(t *testing.T, body string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "adapter.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{path}
}

func TestAdapterRunCapturesOutputAndExitStatus(t *testing.T) {
	a := Adapter{Command: script(t, `echo "{\"tool\":\"$MCPCONFORM_CASE\",\"outcome\":\"ok\"}"; echo oops >&2; exit 3`)}
	r, err := a.Run(context.Background(), Invocation{Case: "echo", Transport: "stdio", Deadline: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 3 || r.Killed || len(r.Calls) != 1 || r.Calls[0].Tool != "echo" || string(r.Stderr) != "oops\n" {
		t.Errorf("run = exit %d killed %v calls %+v stderr %q", r.ExitCode, r.Killed, r.Calls, r.Stderr)
	}
}

// TestAdapterRunNeverInheritsTheAuthToken: a MCPCONFORM_AUTH_TOKEN in the
// harness's environment does not reach an adapter run given none (the
// client auth checks give none), and one the run gives does.
func TestAdapterRunNeverInheritsTheAuthToken(t *testing.T) {
	t.Setenv(EnvAuthToken, "from-the-harness-environment")
	a := Adapter{Command: script(t, `echo "{\"tool\":\"${MCPCONFORM_AUTH_TOKEN-unset}\",\"outcome\":\"ok\"}"`)}
	for _, tc := range []struct{ given, want string }{{"", "unset"}, {"given-by-the-check", "given-by-the-check"}} {
		r, err := a.Run(context.Background(), Invocation{Transport: "http", ServerURL: "http://127.0.0.1:1/mcp", AuthToken: tc.given, Deadline: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Calls) != 1 || r.Calls[0].Tool != tc.want {
			t.Errorf("given %q, the adapter saw %+v, want %q", tc.given, r.Calls, tc.want)
		}
	}
}

func TestAdapterRunKillsAHangingAdapterAndItsGroup(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "late")
	a := Adapter{Command: script(t, `(sleep 1; touch `+marker+`) & sleep 30`)}
	r, err := a.Run(context.Background(), Invocation{Transport: "stdio", Deadline: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Killed || r.Duration > 5*time.Second {
		t.Fatalf("killed %v after %s", r.Killed, r.Duration)
	}
	// The background child was in the adapter's group: it must be gone too.
	// Give it the time it would have needed, then look for its marker.
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a child of the killed adapter survived and wrote its marker")
	}
}

func TestAdapterRunErrorsNameTheWayOut(t *testing.T) {
	if _, err := (Adapter{}).Run(context.Background(), Invocation{}); err == nil || !strings.Contains(err.Error(), "after --") {
		t.Errorf("empty command: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := (Adapter{Command: []string{missing}}).Run(context.Background(), Invocation{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing command: %v", err)
	}
}
