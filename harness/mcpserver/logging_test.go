package mcpserver

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// loggedLevels calls the log tool and returns the levels that arrived.
func loggedLevels(t *testing.T, p *peer) []string {
	t.Helper()
	p.tool("log", "")
	var levels []string
	for _, m := range ofMethod(p.drain(), "notifications/message") {
		par := paramsOf(t, m)
		if par["logger"] != serverLogger || par["data"] == nil {
			t.Errorf("log params %v lack logger or data", par)
		}
		levels = append(levels, par["level"].(string))
	}
	return levels
}

func TestLogThresholdIsInfoBeforeSetLevel(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	if got, want := loggedLevels(t, p), logLevels[1:]; !slices.Equal(got, want) {
		t.Fatalf("before setLevel: %v, want %v", got, want)
	}
}

func TestLogThresholdFollowsSetLevel(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for i, level := range logLevels {
		if got := string(p.call("logging/setLevel", `{"level":"`+level+`"}`).Result); got != "{}" {
			t.Fatalf("setLevel %s: %s", level, got)
		}
		if got := loggedLevels(t, p); !slices.Equal(got, logLevels[i:]) {
			t.Errorf("after setLevel %s: %v, want %v", level, got, logLevels[i:])
		}
	}
}

func TestInvalidLevelIsInvalidParams(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	wantServerResult(t, p.call("logging/setLevel", `{"level":"error"}`))
	for _, params := range []string{`{"level":"loud"}`, `{"level":"INFO"}`, `{"level":""}`, `{"level":3}`, `{}`, ""} {
		wantServerError(t, p.call("logging/setLevel", params), jsonrpc.CodeInvalidParams)
	}
	// A refused level leaves the threshold where it was.
	if got := loggedLevels(t, p); !slices.Equal(got, logLevels[4:]) {
		t.Fatalf("after refused levels: %v", got)
	}
}

func TestFixtureLoggingToolLogsAtInfo(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	p.tool("test_tool_with_logging", "")
	sent := p.drain()
	if got := methods(sent); !slices.Equal(got, []string{"notifications/message", "notifications/message", "notifications/message", "response"}) {
		t.Fatalf("sent %v, want three log messages before the response", got)
	}
	wantServerResult(t, p.call("logging/setLevel", `{"level":"warning"}`))
	p.drain()
	p.tool("test_tool_with_logging", "")
	if got := methods(p.drain()); !slices.Equal(got, []string{"response"}) {
		t.Fatalf("after setLevel warning: %v", got)
	}
}

func init() {
	serverRuleOf[mutant.LogLevelMalformed] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		levels := loggedLevels(t, p)
		for _, l := range levels {
			if levelIndex(l) < 0 {
				return true, fmt.Sprint(levels)
			}
		}
		return false, fmt.Sprint(levels)
	}
}
