package stdiofake

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestScript(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "script.json")
		err := WriteScript(path, Script{
			Tools: []string{"a", "b", "c"},
			Calls: []ScriptCall{
				{Before: []string{"hello", "{broken"}, Reply: true, After: []string{"bye"}},
				{Before: []string{"42"}},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		f := startFake(t, Options{Case: "script", File: path})
		f.initialize()
		f.request(1, "tools/list", nil)
		var list struct {
			Tools []fakeservers.Tool `json:"tools"`
		}
		if err := json.Unmarshal(f.wantResult(jsonrpc.IntID(1)), &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Tools) != 3 || list.Tools[0].Name != "a" || list.Tools[2].Name != "c" {
			t.Fatalf("tools %+v; want a, b, c", list.Tools)
		}

		f.callTool(jsonrpc.IntID(2), "a")
		wantLine(t, f, "hello")
		wantLine(t, f, "{broken")
		f.wantCallText(jsonrpc.IntID(2), "ok a")
		wantLine(t, f, "bye")

		f.callTool(jsonrpc.IntID(3), "b")
		wantLine(t, f, "42")
		f.request(4, "ping", nil) // call 3 stays unanswered
		f.wantResult(jsonrpc.IntID(4))

		f.callTool(jsonrpc.IntID(5), "c") // beyond the script: the default reply
		f.wantCallText(jsonrpc.IntID(5), "ok c")
	})
}

func wantLine(t *testing.T, f *fakeConn, want string) {
	t.Helper()
	if got := f.nextLine(); got != want {
		t.Fatalf("fake wrote %q; want %q", got, want)
	}
}

func TestScriptBannerAndStderr(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "script.json")
		err := WriteScript(path, Script{
			Banner: []string{"2026-01-01 12:00:00 INFO up", "42 ready"},
			Calls:  []ScriptCall{{Stderr: 1000, Reply: true}},
		})
		if err != nil {
			t.Fatal(err)
		}
		f := startFake(t, Options{Case: "script", File: path})
		wantLine(t, f, "2026-01-01 12:00:00 INFO up")
		wantLine(t, f, "42 ready")
		f.initialize()
		f.callTool(jsonrpc.IntID(2), "echo")
		f.wantCallText(jsonrpc.IntID(2), "ok echo")
		f.closeStdin()
		f.wantStatus(0)
		if n := len(f.stderrText()); n != 1000 {
			t.Fatalf("the fake wrote %d stderr bytes; want 1000", n)
		}
	})
}
