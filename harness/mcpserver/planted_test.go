package mcpserver

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// nulArgs are tools/call params whose arguments hide U+0000 in a nested key.
const nulArgs = `{"name":"json_schema_2020_12_tool","arguments":{"a":[1,{"k\u0000":"v"}]}}`

func TestHoldsNUL(t *testing.T) {
	for text, want := range map[string]bool{
		`{"a":"x\u0000y"}`:                       true,
		`{"a":[1,["\u0000"]]}`:                   true,
		`{"a":{"b":{"\u0000":1}}}`:               true,
		`{"a":"x","b":[1,"\\u0000",{"c":null}]}`: false,
		`{}`:                                     false,
	} {
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		if got := holdsNUL(v); got != want {
			t.Errorf("holdsNUL(%s) = %v, want %v", text, got, want)
		}
	}
}

// TestPlantedCrashOnString runs itself in a child process, which the mutant
// must end with status 3 before it answers; the reference answers.
func TestPlantedCrashOnString(t *testing.T) {
	if os.Getenv("MCPCONFORM_PLANTED_CRASH_CHILD") == "1" {
		p := newPeerWith(t, Options{Mutant: mutant.PlantedCrashOnString})
		p.initialize("{}")
		p.call("tools/call", nulArgs)
		os.Stdout.WriteString("answered\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlantedCrashOnString$")
	cmd.Env = append(os.Environ(), "MCPCONFORM_PLANTED_CRASH_CHILD=1")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || len(out) != 0 {
		t.Fatalf("the mutant's process: %v, stdout %q; want exit status 3 and nothing written", err, out)
	}

	p := newPeerWith(t, Options{})
	p.initialize("{}")
	if resp := p.call("tools/call", nulArgs); resp.Kind() != jsonrpc.KindResult {
		t.Fatalf("the reference answered %+v, want a result", resp)
	}
}

func TestPlantedLeak(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.PlantedLeak} {
		p := newPeerWith(t, Options{Mutant: m})
		p.initialize("{}")
		leakMu.Lock()
		before := len(leaked)
		leakMu.Unlock()
		p.call("tools/call", `{"name":"test_simple_text"}`)
		p.call("tools/call", `{"name":"test_image_content"}`)
		p.call("tools/call", `{"name":"test_simple_text"}`)
		leakMu.Lock()
		kept := leaked[before:]
		leakMu.Unlock()
		want := 0
		if m != "" {
			want = 2
		}
		if len(kept) != want {
			t.Fatalf("mutant %q kept %d blocks after two calls of test_simple_text, want %d", m, len(kept), want)
		}
		for _, b := range kept {
			if len(b) != 8<<20 {
				t.Fatalf("a kept block holds %d bytes, want 8 MiB", len(b))
			}
			for page := 0; page < len(b); page += 4096 {
				if b[page] == 0 {
					t.Fatalf("page at %d of a kept block was never written", page)
				}
			}
		}
	}
}

func TestPlantedDuplicateTrigger(t *testing.T) {
	for params, want := range map[string]bool{`{"level":"emergency"}`: true, `{"level":"alert"}`: false, `{}`: false} {
		if got := PlantedDuplicateTrigger(msg(jsonrpc.IntID(1), "logging/setLevel", params)); got != want {
			t.Errorf("setLevel %s: %v, want %v", params, got, want)
		}
	}
	if PlantedDuplicateTrigger(msg(jsonrpc.IntID(1), "ping", `{"level":"emergency"}`)) || PlantedDuplicateTrigger(msg(jsonrpc.ID{}, "logging/setLevel", `{"level":"emergency"}`)) {
		t.Error("the trigger is a logging/setLevel request only")
	}
}

func TestPlantedWedgeAfterUnknownCancel(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.PlantedWedgeAfterUnknownCancel} {
		p := newPeerWith(t, Options{Mutant: m})
		p.initialize("{}")
		// Cancels of a finished request and of one that arrives after its
		// cancel name requests the server received: no wedge.
		p.callID(jsonrpc.IntID(10), "ping", "")
		p.notify("notifications/cancelled", `{"requestId":10}`)
		p.notify("notifications/cancelled", `{"requestId":"late"}`)
		p.handle(msg(jsonrpc.StringID("late"), "ping", ""))
		p.call("ping", "")
		p.notify("notifications/cancelled", `{"requestId":999}`)
		resp := p.handle(msg(jsonrpc.IntID(11), "ping", ""))
		if m == "" && resp == nil {
			t.Fatal("the reference stopped answering after a cancel for an unknown id")
		}
		if m != "" && resp != nil {
			t.Fatalf("the mutant answered %+v after a cancel for an id it never received", resp)
		}
	}
}
