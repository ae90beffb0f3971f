package stdiofake

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestBaseHandshake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "well-behaved"})

		f.request(1, "server/discover", map[string]any{})
		if e := f.wantError(jsonrpc.IntID(1), jsonrpc.CodeMethodNotFound); e.Message != "Method not found" {
			t.Errorf("server/discover error message %q; want %q", e.Message, "Method not found")
		}

		f.request(2, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}})
		var init fakeservers.InitializeResult
		if err := json.Unmarshal(f.wantResult(jsonrpc.IntID(2)), &init); err != nil {
			t.Fatal(err)
		}
		if init.ProtocolVersion != "2025-06-18" || init.ServerInfo.Name != "mcpconform-fake" || init.Capabilities["tools"] == nil {
			t.Errorf("initialize result %+v; want version 2025-06-18, server mcpconform-fake, tools capability", init)
		}

		// A notification is never answered: the next line answers the ping after it.
		f.sendMessage(jsonrpc.ID{}, "notifications/initialized", nil)
		f.request(3, "ping", nil)
		if got := string(f.wantResult(jsonrpc.IntID(3))); got != "{}" {
			t.Errorf("ping result %s; want {}", got)
		}

		f.sendMessage(jsonrpc.StringID("list"), "tools/list", nil)
		var list struct {
			Tools []fakeservers.Tool `json:"tools"`
		}
		if err := json.Unmarshal(f.wantResult(jsonrpc.StringID("list")), &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Tools) != 1 || list.Tools[0].Name != "echo" || list.Tools[0].InputSchema["type"] != "object" {
			t.Errorf("tools/list %+v; want one tool echo with inputSchema {type: object}", list.Tools)
		}

		f.callTool(jsonrpc.IntID(4), "echo")
		f.wantCallText(jsonrpc.IntID(4), "ok echo")

		f.request(5, "resources/list", nil)
		f.wantError(jsonrpc.IntID(5), jsonrpc.CodeMethodNotFound)

		f.closeStdin()
		f.wantStatus(0)

		r := f.readRecord()
		if got := len(r.Lines()); got != 7 {
			t.Errorf("record holds %d received lines; want 7", got)
		}
		if got := len(r.Requests("tools/call")); got != 1 {
			t.Errorf("record holds %d tools/call requests; want 1", got)
		}
		if got := len(r.Notifications("notifications/initialized")); got != 1 {
			t.Errorf("record holds %d initialized notifications; want 1", got)
		}
		if _, ok := r.FirstRecv("initialize"); !ok {
			t.Error("record: no initialize received")
		}
		if _, ok := r.First(EventStdinEOF); !ok {
			t.Error("record: no stdin EOF")
		}
		if e, ok := r.First(EventExit); !ok || e.Detail != "stdin closed" {
			t.Errorf("record: exit %+v; want detail %q", e, "stdin closed")
		}
		if !r.ExitedByItself() {
			t.Error("ExitedByItself = false; want true")
		}
		sends := 0
		for _, e := range r.Events {
			if e.Type == EventSend {
				sends++
			}
		}
		if sends != 6 {
			t.Errorf("record holds %d sent lines; want 6", sends)
		}
	})
}

func TestInitializeVersion(t *testing.T) {
	for proposed, want := range map[string]string{
		"2025-03-26": "2025-03-26",
		"2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25",
		"2026-07-28": "2025-11-25",
		"2024-11-05": "2025-11-25",
		"":           "2025-11-25",
	} {
		t.Run(proposed, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := startFake(t, Options{Case: "well-behaved"})
				f.request(1, "initialize", map[string]any{"protocolVersion": proposed})
				var init fakeservers.InitializeResult
				if err := json.Unmarshal(f.wantResult(jsonrpc.IntID(1)), &init); err != nil {
					t.Fatal(err)
				}
				if init.ProtocolVersion != want {
					t.Errorf("proposed %q: answered %q; want %q", proposed, init.ProtocolVersion, want)
				}
			})
		})
	}
}

func TestIgnoreEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "close-ignore-eof"})
		f.initialize()
		f.closeStdin()
		synctest.Wait()
		select {
		case code := <-f.status:
			t.Fatalf("Serve returned %d on stdin EOF; want it to keep running", code)
		default:
		}
		r := f.readRecord()
		if _, ok := r.First(EventStdinEOF); !ok {
			t.Error("record: no stdin EOF")
		}
		if r.ExitedByItself() {
			t.Error("ExitedByItself = true; want false")
		}
	})
}

func TestSlowStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 3 * time.Second
		f := startFake(t, Options{Case: "slow-start", Delay: delay})
		f.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25"})
		f.sendMessage(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": 1})
		r := f.readRecord()
		if _, ok := r.FirstRecv("notifications/cancelled"); !ok {
			t.Fatal("record: notifications/cancelled not recorded while initialize was delayed")
		}
		start, _ := r.FirstRecv("initialize")
		f.wantResult(jsonrpc.IntID(1))
		var sent Event
		for _, e := range f.readRecord().Events {
			if e.Type == EventSend {
				sent = e
			}
		}
		if gap := time.Duration(sent.T - start.T); gap < delay {
			t.Errorf("initialize answered %s after it arrived; want at least %s", gap, delay)
		}
	})
}

func TestNeverAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "never-answers"})
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "echo")
		f.request(2, "ping", nil)
		f.wantResult(jsonrpc.IntID(2))
		f.closeStdin()
		f.wantStatus(0)
	})
}

// TestCancelThenEchoHoldsEchoForTheCancel: echo is answered once the cancel
// of slow has arrived, right after slow's late answer, or after the wait
// when none comes (slow then never is).
func TestCancelThenEchoHoldsEchoForTheCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "cancel-then-echo", Delay: time.Second})
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "slow")
		f.callTool(jsonrpc.IntID(2), "echo")
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if len(f.lines) != 0 {
			t.Fatalf("echo answered before any cancel: %s", f.nextLine())
		}
		f.sendMessage(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": 1})
		f.wantError(jsonrpc.IntID(1), jsonrpc.CodeInternalError) // slow's late answer, before echo's
		f.wantCallText(jsonrpc.IntID(2), "ok echo")
		f.callTool(jsonrpc.IntID(3), "echo") // cancel already seen: at once
		f.wantCallText(jsonrpc.IntID(3), "ok echo")
		f.closeStdin()
		f.wantStatus(0)
	})
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "cancel-then-echo", Delay: time.Second})
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "slow")
		start := time.Now()
		f.callTool(jsonrpc.IntID(2), "echo")
		f.wantCallText(jsonrpc.IntID(2), "ok echo")
		if waited := time.Since(start); waited < time.Second {
			t.Errorf("echo answered after %s without a cancel; want the 1s wait", waited)
		}
		f.closeStdin()
		f.wantStatus(0)
	})
}

func TestEarlyExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "early-exit"})
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "echo")
		f.wantStatus(3)
		if !f.readRecord().ExitedByItself() {
			t.Error("ExitedByItself = false; want true")
		}
	})
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Case: "no-such-case"},
		{Case: "damaged", Shape: "square"},
		{Case: "non-object", Shape: "{}"},
		{Case: "banner-lines", Lines: 2, Marker: "has jsonrpc in it"},
		{Case: "banner-bytes", Bytes: -1},
		{Case: "stderr-flood", Bytes: 10},
		{Case: "stderr-secret-exit"},
		{Case: "grandchild"},
		{Case: "script", File: "/nonexistent/script.json"},
	} {
		var stderr strings.Builder
		if code := Serve(t.Context(), o, strings.NewReader(""), &strings.Builder{}, &stderr, nil); code != 2 {
			t.Errorf("%+v: status %d; want 2", o, code)
		}
		if !strings.Contains(stderr.String(), "fakeserver") {
			t.Errorf("%+v: message %q; want one naming fakeserver", o, stderr.String())
		}
	}
}

func TestCasesListed(t *testing.T) {
	ids := CaseIDs()
	for _, want := range []string{"well-behaved", "banner-before-init", "banner-lines", "banner-bytes", "banner-between",
		"damaged", "non-object", "stderr-flood", "stderr-secret-exit", "never-answers", "never-answers-ignore-eof",
		"never-answers-stubborn", "close-ignore-eof", "close-stubborn", "grandchild", "grandchild-sleeper",
		"slow-start", "early-exit", "id-swap", "reverse-order", "script", "cancel-then-echo",
		"input-required", "input-undeclared", "listen", "listen-ack-short", "listen-foreign-ack", "result-type-unknown", "paged", "version-unspoken", "batch"} {
		if !slices.Contains(ids, want) {
			t.Errorf("case %s missing", want)
		}
	}
	for _, c := range Cases() {
		if c.Description == "" {
			t.Errorf("case %s has no description", c.ID)
		}
	}
}

func TestAnswersBeforeEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "well-behaved"})
		f.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25"})
		f.callTool(jsonrpc.IntID(2), "echo")
		f.request(3, "ping", nil)
		f.closeStdin()
		f.wantResult(jsonrpc.IntID(1))
		got := map[string]bool{}
		for range 2 {
			got[f.nextMessage().ID.Key()] = true
		}
		if !got["2"] || !got["3"] {
			t.Errorf("answered ids %v after EOF; want 2 and 3", got)
		}
		f.wantStatus(0)
	})
}
