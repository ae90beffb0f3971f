package stdiofake

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestIDSwap(t *testing.T) {
	for _, tc := range []struct {
		name        string
		id, swapped jsonrpc.ID
	}{
		{"number", jsonrpc.IntID(7), jsonrpc.StringID("7")},
		{"numeric string", jsonrpc.StringID("7"), jsonrpc.IntID(7)},
		{"other string", jsonrpc.StringID("call-x"), jsonrpc.IntID(-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := startFake(t, Options{Case: "id-swap"})
				f.initialize()
				f.callTool(tc.id, "echo")
				if e := f.wantError(tc.swapped, jsonrpc.CodeInternalError); e.Message != "wrong id type" {
					t.Errorf("error message %q; want %q", e.Message, "wrong id type")
				}
				f.wantCallText(tc.id, "ok echo")
			})
		})
	}
}

func TestReverseOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "reverse-order"})
		f.initialize()
		f.request(1, "tools/list", nil)
		var list struct {
			Tools []fakeservers.Tool `json:"tools"`
		}
		if err := json.Unmarshal(f.wantResult(jsonrpc.IntID(1)), &list); err != nil {
			t.Fatal(err)
		}
		want := []string{"ok-1", "err-2", "ok-3", "err-4"}
		if len(list.Tools) != len(want) {
			t.Fatalf("offers %d tools; want %v", len(list.Tools), want)
		}
		for i, name := range want {
			if list.Tools[i].Name != name {
				t.Fatalf("tool %d is %q; want %q", i, list.Tools[i].Name, name)
			}
			f.callTool(jsonrpc.IntID(int64(10+i)), name)
		}
		f.wantError(jsonrpc.IntID(13), jsonrpc.CodeInternalError)
		f.wantCallText(jsonrpc.IntID(12), "ok ok-3")
		f.wantError(jsonrpc.IntID(11), jsonrpc.CodeInternalError)
		f.wantCallText(jsonrpc.IntID(10), "ok ok-1")
	})
}

func TestReverseOrderWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "reverse-order"})
		f.initialize()
		start := time.Now()
		f.callTool(jsonrpc.IntID(1), "ok-1")
		f.callTool(jsonrpc.IntID(2), "err-2")
		f.wantError(jsonrpc.IntID(2), jsonrpc.CodeInternalError)
		if waited := time.Since(start); waited != defaultReverseWindow {
			t.Errorf("an incomplete batch was answered after %s; want %s", waited, defaultReverseWindow)
		}
		f.wantCallText(jsonrpc.IntID(1), "ok ok-1")
	})
}
