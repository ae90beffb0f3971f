package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// progressCall calls tool name with _meta (a JSON text, or "" for none) and
// returns the progress notifications that came before the response and
// what came after it.
func progressCall(t *testing.T, p *peer, name, args, meta string) (progress []*jsonrpc.Message, after []string) {
	t.Helper()
	params := fmt.Sprintf(`{"name":%q,"arguments":%s}`, name, args)
	if meta != "" {
		params = fmt.Sprintf(`{"name":%q,"arguments":%s,"_meta":%s}`, name, args, meta)
	}
	p.call("tools/call", params)
	answered := false
	for _, m := range p.drain() {
		switch {
		case m.Method == "":
			answered = true
		case answered:
			after = append(after, m.Method)
		case m.Method == "notifications/progress":
			progress = append(progress, m)
		}
	}
	return progress, after
}

// progressToken reads a notification's token as raw JSON.
func tokenOf(t *testing.T, m *jsonrpc.Message) string {
	t.Helper()
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	return string(p.ProgressToken)
}

func TestProgressEchoesTheTokenVerbatim(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, token := range []string{`"abc"`, `""`, `7`, `-3`, `0`, `123456789012345678901234567890`, `1.5`, `"7"`} {
		progress, _ := progressCall(t, p, "progress", `{"steps":2}`, `{"progressToken":`+token+`}`)
		if len(progress) != 2 {
			t.Fatalf("token %s: %d progress notifications, want 2", token, len(progress))
		}
		for _, m := range progress {
			if got := tokenOf(t, m); got != token {
				t.Errorf("token %s echoed as %s", token, got)
			}
		}
	}
}

func TestProgressWithoutTokenIsSilent(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, meta := range []string{"", `{}`, `{"progressToken":null}`, `{"progressToken":true}`, `{"progressToken":{"a":1}}`} {
		if progress, after := progressCall(t, p, "test_tool_with_progress", "{}", meta); len(progress)+len(after) > 0 {
			t.Errorf("_meta %s: %d progress notifications, %v after the response", meta, len(progress), after)
		}
	}
}

// progressValues are the progress values of notifications.
func progressValues(t *testing.T, ms []*jsonrpc.Message) []float64 {
	t.Helper()
	var out []float64
	for _, m := range ms {
		out = append(out, paramsOf(t, m)["progress"].(float64))
	}
	return out
}

func TestProgressStrictlyIncreases(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	progress, _ := progressCall(t, p, "progress", `{"steps":4}`, `{"progressToken":"s"}`)
	if got := progressValues(t, progress); !slices.Equal(got, []float64{1, 2, 3, 4}) {
		t.Fatalf("progress %v, want 1 2 3 4: the repeated last step must not be sent", got)
	}
	par := paramsOf(t, progress[0])
	if par["total"] != 4.0 || par["message"] != "step 1 of 4" {
		t.Fatalf("params %v lack total or message", par)
	}
	progress, _ = progressCall(t, p, "test_tool_with_progress", "{}", `{"progressToken":"f"}`)
	if got := progressValues(t, progress); !slices.Equal(got, []float64{0, 50, 100}) {
		t.Fatalf("fixture progress %v, want 0 50 100", got)
	}
}

func TestNoProgressAfterTheResponse(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	progressCall(t, p, "progress", `{"steps":3}`, `{"progressToken":"late"}`)
	p.call("ping", "")
	p.tool("test_simple_text", "")
	for _, m := range p.drain() {
		if m.Method == "notifications/progress" {
			t.Fatalf("progress %s after the response", m.Params)
		}
	}
	if late := p.lateSends(); len(late) > 0 {
		t.Fatalf("sent %v after Handle returned", late)
	}
}

func TestProgressAfterTheHandlerReturnedFails(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	var kept *RequestContext
	srv := p.srv
	sess := srv.session(p.ctx, p.session)
	rc, _ := sess.begin(p.ctx, srv, msg(jsonrpc.IntID(99), "tools/call", `{"_meta":{"progressToken":1}}`), func(m *jsonrpc.Message) error {
		t.Errorf("sent %s after the handler returned", m.Method)
		return nil
	})
	kept = rc
	sess.finish(rc)
	if err := kept.Progress(1, 0, ""); err != ErrRequestDone {
		t.Fatalf("Progress after finish: %v, want ErrRequestDone", err)
	}
	if err := kept.Log("emergency", "", "x"); err != ErrRequestDone {
		t.Fatalf("Log after finish: %v, want ErrRequestDone", err)
	}
	if !bytes.Equal(kept.token, []byte("1")) {
		t.Fatalf("token %s", kept.token)
	}
}
