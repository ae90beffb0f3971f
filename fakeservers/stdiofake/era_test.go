package stdiofake

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// modernMeta is the _meta of a 2026-07-28 request (JR-46).
func modernMeta() map[string]any {
	return map[string]any{mcp.MetaProtocolVersion: mcp.ModernVersion, mcp.MetaClientCapabilities: map[string]any{}}
}

// modernRequest sends a request whose params carry a 2026-07-28 _meta.
func (f *fakeConn) modernRequest(id jsonrpc.ID, method string, params map[string]any) {
	f.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = modernMeta()
	f.sendMessage(id, method, params)
}

// discover opens the modern era: server/discover, answered with the
// versions served.
func (f *fakeConn) discover() {
	f.t.Helper()
	f.modernRequest(jsonrpc.IntID(0), mcp.MethodDiscover, nil)
	var d fakeservers.DiscoverResult
	if err := json.Unmarshal(f.wantResult(jsonrpc.IntID(0)), &d); err != nil {
		f.t.Fatal(err)
	}
	if len(d.SupportedVersions) != 1 || d.SupportedVersions[0] != mcp.ModernVersion || d.ResultType != "complete" {
		f.t.Fatalf("server/discover result %+v; want supportedVersions [%s] and resultType complete", d, mcp.ModernVersion)
	}
}

// wantResultType checks that result carries resultType want ("" for none).
func wantResultType(t *testing.T, result json.RawMessage, want string) {
	t.Helper()
	var r struct {
		ResultType *string `json:"resultType"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatal(err)
	}
	switch {
	case want == "" && r.ResultType != nil:
		t.Errorf("result %s carries resultType; a legacy-era result has none", result)
	case want != "" && (r.ResultType == nil || *r.ResultType != want):
		t.Errorf("result %s; want resultType %q", result, want)
	}
}

// A modern fake serves 2026-07-28 alone: server/discover names the versions,
// every request needs its _meta (JR-47), initialize and unknown versions get
// -32022 naming the versions served (LC-42, LC-48), legacy-only methods are
// unknown, and every result carries resultType (JR-15).
func TestModernEra(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "well-behaved", Era: fakeservers.Modern})
		f.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}})
		e := f.wantError(jsonrpc.IntID(1), jsonrpc.CodeUnsupportedProtocolVersion)
		if !strings.Contains(e.Message, mcp.ModernVersion) || !strings.Contains(string(e.Data), `"supported":["`+mcp.ModernVersion+`"]`) {
			t.Errorf("initialize refused with %q %s; want the versions served named (LC-48)", e.Message, e.Data)
		}
		f.discover()
		f.request(2, "tools/list", nil)
		f.wantError(jsonrpc.IntID(2), jsonrpc.CodeInvalidParams)
		f.sendMessage(jsonrpc.IntID(3), "tools/list", map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: mcp.ModernVersion}})
		f.wantError(jsonrpc.IntID(3), jsonrpc.CodeInvalidParams)
		f.sendMessage(jsonrpc.IntID(4), "tools/list", map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: "2099-01-01", mcp.MetaClientCapabilities: map[string]any{}}})
		f.wantError(jsonrpc.IntID(4), jsonrpc.CodeUnsupportedProtocolVersion)
		f.modernRequest(jsonrpc.IntID(5), "tools/list", nil)
		wantResultType(t, f.wantResult(jsonrpc.IntID(5)), "complete")
		f.modernRequest(jsonrpc.IntID(6), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})
		result := f.wantResult(jsonrpc.IntID(6))
		wantResultType(t, result, "complete")
		f.callTool(jsonrpc.IntID(7), "echo")
		f.wantError(jsonrpc.IntID(7), jsonrpc.CodeInvalidParams)
		f.modernRequest(jsonrpc.IntID(8), "ping", nil)
		f.wantError(jsonrpc.IntID(8), jsonrpc.CodeMethodNotFound)
		if calls := f.readRecord().Requests("tools/call"); len(calls) != 2 {
			t.Errorf("record holds %d tools/call requests; want both, the refused one too", len(calls))
		}
		f.closeStdin()
		f.wantStatus(0)
	})
}

// A dual fake serves the legacy era to initialize and the modern one to a
// request that names 2026-07-28 in its _meta, whichever came first (LC-49).
func TestDualEra(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "well-behaved", Era: fakeservers.Dual})
		f.discover()
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "echo")
		wantResultType(t, f.wantResult(jsonrpc.IntID(1)), "")
		f.request(2, "ping", nil)
		f.wantResult(jsonrpc.IntID(2))
		f.modernRequest(jsonrpc.IntID(3), "tools/call", map[string]any{"name": "echo"})
		wantResultType(t, f.wantResult(jsonrpc.IntID(3)), "complete")
		f.closeStdin()
		f.wantStatus(0)
	})
}

// A strict legacy fake refuses the probe before initialize with -32600, not
// -32601 (LC-46), and serves it as a legacy fake once initialized.
func TestStrictInit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "well-behaved", StrictInit: true})
		f.modernRequest(jsonrpc.IntID(1), mcp.MethodDiscover, nil)
		f.wantError(jsonrpc.IntID(1), jsonrpc.CodeInvalidRequest)
		f.initialize()
		f.modernRequest(jsonrpc.IntID(2), mcp.MethodDiscover, nil)
		f.wantError(jsonrpc.IntID(2), jsonrpc.CodeMethodNotFound)
		f.callTool(jsonrpc.IntID(3), "echo")
		f.wantCallText(jsonrpc.IntID(3), "ok echo")
	})
	if _, err := build(Options{Case: "well-behaved", StrictInit: true, Era: fakeservers.Modern}); err == nil || !strings.Contains(err.Error(), "--strict-init") {
		t.Errorf("strict-init beside the modern era: %v; want an error naming --strict-init", err)
	}
	if _, err := build(Options{Case: "well-behaved", Era: "future"}); err == nil || !strings.Contains(err.Error(), "legacy, modern, dual") {
		t.Errorf("era future: %v; want an error naming the eras", err)
	}
}

// The scripted misbehaviour of a case is the same in the modern era: a
// banner before anything is read, a damaged line for a call (the truncated
// result cut from a modern result), a flood of stderr, the handshake's reply
// held back (server/discover's, the modern handshake).
func TestCasesServeTheModernEra(t *testing.T) {
	t.Run("banner-before-init", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := startFake(t, Options{Case: "banner-before-init", Lines: 2, Era: fakeservers.Modern})
			for range 2 {
				if line := f.nextLine(); jsonrpc.ClassifyLine([]byte(line)) != jsonrpc.ClassText {
					t.Errorf("banner line %q is not text", line)
				}
			}
			f.discover()
		})
	})
	t.Run("damaged truncated-result", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := startFake(t, Options{Case: "damaged", Shape: "truncated-result", Era: fakeservers.Modern})
			f.discover()
			f.modernRequest(jsonrpc.StringID("call-1"), "tools/call", map[string]any{"name": "echo"})
			whole := string(fakeservers.Encode(fakeservers.ToolCall{Req: &jsonrpc.Message{ID: jsonrpc.StringID("call-1")}, Name: "echo", Modern: true}.OK()))
			if line := f.nextLine(); line != whole[:len(whole)/2] || !strings.Contains(whole, `"resultType":"complete"`) {
				t.Errorf("truncated-result wrote %q; want the first half of the modern result %q", line, whole)
			}
		})
	})
	t.Run("stderr-flood", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := startFake(t, Options{Case: "stderr-flood", When: "during", Bytes: 4096, Marker: "M", Era: fakeservers.Modern})
			f.discover()
			f.modernRequest(jsonrpc.IntID(1), "tools/call", map[string]any{"name": "echo"})
			wantResultType(t, f.wantResult(jsonrpc.IntID(1)), "complete")
			f.closeStdin()
			f.wantStatus(0)
			if n := len(f.stderrText()); n != 4096 {
				t.Errorf("the flood wrote %d bytes to stderr; want 4096", n)
			}
		})
	})
	t.Run("slow-start", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const delay = 3 * time.Second
			f := startFake(t, Options{Case: "slow-start", Delay: delay, Era: fakeservers.Modern})
			asked := time.Now()
			f.discover()
			if waited := time.Since(asked); waited < delay {
				t.Errorf("server/discover answered after %s; want the handshake held back %s", waited, delay)
			}
		})
	})
}

// Options carry the era to the subprocess and back.
func TestEraArgs(t *testing.T) {
	o := Options{Case: "well-behaved", Era: fakeservers.Dual, StrictInit: false}
	got, err := ParseArgs(o.Args(), &strings.Builder{})
	if err != nil || got.Era != fakeservers.Dual {
		t.Fatalf("ParseArgs(%q) = %+v, %v; want era dual", o.Args(), got, err)
	}
	o = Options{Case: "well-behaved", StrictInit: true}
	if got, err := ParseArgs(o.Args(), &strings.Builder{}); err != nil || !got.StrictInit || got.Era != fakeservers.Legacy {
		t.Fatalf("ParseArgs(%q) = %+v, %v; want strict-init in the legacy era", o.Args(), got, err)
	}
	if _, err := ParseArgs([]string{"--case", "well-behaved", "--era", "2026"}, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "--era") {
		t.Errorf("--era 2026: %v; want an error naming --era", err)
	}
}
