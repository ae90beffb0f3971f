package httpserver_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

const pingBody = `{"jsonrpc":"2.0","id":2,"method":"ping"}`

// observation looks at one rule of the server transport and reports whether
// the server broke it, with what it saw.
type observation func(t *testing.T, e *endpoint) (broken bool, saw string)

// ruleOf maps each mutant of the server transport to an observation of the
// rule it breaks: the reference keeps the rule, the mutant breaks it.
var ruleOf = map[mutant.Name]observation{
	mutant.NotificationGets200: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		resp := e.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeader(sid))
		return resp.StatusCode != http.StatusAccepted, resp.Status
	},
	mutant.RefusedBodyGets200: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		resp := e.post(`{"jsonrpc":`, sessionHeader(sid))
		return resp.StatusCode < 400, resp.Status
	},
	mutant.WrongContentType: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		ct := e.post(pingBody, sessionHeader(sid)).Header.Get("Content-Type")
		return ct != "text/event-stream" && ct != "application/json", ct
	},
	mutant.StreamStaysOpen: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		s := openSSE(t, e.post(pingBody, sessionHeader(sid)))
		wantResult(t, mustMessage(s), jsonrpc.IntID(2))
		ended := s.endsWithin(quietWindow)
		return !ended, fmt.Sprint("stream ended after the response: ", ended)
	},
	mutant.GetReturnsJSON: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		resp := e.send(http.MethodGet, "", sessionHeader(sid))
		ct := resp.Header.Get("Content-Type")
		return resp.StatusCode != http.StatusMethodNotAllowed && ct != "text/event-stream", resp.Status + " " + ct
	},
	mutant.ResponseOnGetStream: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		get := e.getStream(sid)
		get.wantPriming()
		drain(e.post(pingBody, sessionHeader(sid)))
		return nextIsNotTheMarker(t, e, sid, get)
	},
	mutant.DuplicateAcrossStreams: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		get := e.getStream(sid)
		get.wantPriming()
		readAnswer(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify"}}`, sessionHeader(sid)))
		return nextIsNotTheMarker(t, e, sid, get)
	},
	mutant.NotificationsOnGetStream: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		get := e.getStream(sid)
		get.wantPriming()
		readAnswer(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify"}}`, sessionHeader(sid)))
		return nextIsNotTheMarker(t, e, sid, get)
	},
	mutant.StreamClosedEarly: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.initialize("2025-06-18")
		post := openSSE(t, e.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify"}}`, sessionHeader(sid), versionHeader("2025-06-18")))
		for {
			ev, err := post.next()
			if err != nil {
				return true, fmt.Sprintf("the stream ended before the response: %v", err)
			}
			if m, _ := jsonrpc.Decode([]byte(ev.data)); m != nil && m.Kind() == jsonrpc.KindResult {
				return false, "the response came on the stream"
			}
		}
	},
	mutant.DuplicateEventIDs: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		getID := e.getStream(sid).wantPriming().id
		postID := openSSE(t, e.post(pingBody, sessionHeader(sid))).wantPriming().id
		return getID == postID, getID + " " + postID
	},
	mutant.SessionIDNotVisible: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.post(initializeBody("2025-11-25")).Header.Get("Mcp-Session-Id")
		return strings.ContainsFunc(sid, func(r rune) bool { return r < 0x21 || r > 0x7e }), fmt.Sprintf("%q", sid)
	},
	mutant.MissingSessionAccepted: func(t *testing.T, e *endpoint) (bool, string) {
		e.session()
		resp := e.post(pingBody)
		return resp.StatusCode != http.StatusBadRequest, resp.Status
	},
	mutant.DeleteKeepsSession: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		wantStatus(t, e.send(http.MethodDelete, "", sessionHeader(sid)), http.StatusNoContent)
		resp := e.post(pingBody, sessionHeader(sid))
		return resp.StatusCode != http.StatusNotFound, resp.Status
	},
	mutant.NoOriginCheck: func(t *testing.T, e *endpoint) (bool, string) {
		resp := e.post(initializeBody("2025-11-25"), header{"Origin", "https://evil.example"})
		return resp.StatusCode != http.StatusForbidden, resp.Status
	},
	mutant.NoVersionCheck: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		resp := e.post(pingBody, sessionHeader(sid), versionHeader("1999-01-01"))
		return resp.StatusCode != http.StatusBadRequest, resp.Status
	},
	mutant.AcceptBatch: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		resp := e.post(pingBatch, sessionHeader(sid))
		return resp.StatusCode < 400, resp.Status
	},
	mutant.ReplayOtherStreams: func(t *testing.T, e *endpoint) (bool, string) {
		sid := e.session()
		get := e.getStream(sid)
		get.wantPriming()
		if err := e.srv.Notify(sid, notification(t, 1)); err != nil {
			t.Fatal(err)
		}
		_, ev := get.wantMessage()
		readAnswer(t, e.post(pingBody, sessionHeader(sid)))
		_ = get.resp.Body.Close()
		return nextIsNotTheMarker(t, e, sid, e.getStream(sid, lastEventHeader(ev.id)))
	},
}

func TestEachServerMutantBreaksItsRule(t *testing.T) {
	for _, m := range mutant.ForRole("server") {
		if mutant.OfServerProtocol(m.Name) {
			continue // the reference MCP server's mutants; package mcpserver tests them
		}
		if mutant.OfServerAuth(m.Name) {
			continue // the protected resource's mutants; package serve tests them with its authorization server
		}
		t.Run(string(m.Name), func(t *testing.T) {
			observe, ok := ruleOf[m.Name]
			if !ok {
				t.Fatalf("no test observes the rule mutant %s breaks (%s)", m.Name, m.Description)
			}
			if broken, saw := observe(t, serve(t, minimal(""))); broken {
				t.Errorf("the reference breaks the rule of %s (%s): saw %s", m.Name, m.Description, saw)
			}
			if broken, saw := observe(t, serve(t, minimal(m.Name))); !broken {
				t.Errorf("mutant %s keeps its rule (%s): saw %s", m.Name, m.Description, saw)
			}
		})
	}
}

// variantOf maps permitted variants of the server transport to an
// observation of what each does differently: the reference does not, the
// variant does.
var variantOf = map[mutant.Name]observation{
	mutant.NoHostCheck: func(t *testing.T, e *endpoint) (bool, string) {
		resp := e.post(initializeBody("2025-11-25"), header{"Host", "rebound.example"})
		return resp.StatusCode != http.StatusForbidden, resp.Status
	},
	mutant.UnknownSessionAccepted: func(t *testing.T, e *endpoint) (bool, string) {
		e.session()
		resp := e.post(pingBody, sessionHeader("NEVERISSUED"))
		return resp.StatusCode != http.StatusNotFound, resp.Status
	},
}

func TestServerVariantsDoWhatTheySay(t *testing.T) {
	for name, observe := range variantOf {
		t.Run(string(name), func(t *testing.T) {
			v, ok := mutant.LookupVariant(name)
			if !ok {
				t.Fatalf("%s is no permitted variant", name)
			}
			if differs, saw := observe(t, serve(t, minimal(""))); differs {
				t.Errorf("the reference does what variant %s does (%s): saw %s", name, v.Description, saw)
			}
			if differs, saw := observe(t, serve(t, minimal(name))); !differs {
				t.Errorf("variant %s does not do what it says (%s): saw %s", name, v.Description, saw)
			}
		})
	}
}

func TestUnknownSessionVariantStillRefusesEndedSessions(t *testing.T) {
	e := serve(t, minimal(mutant.UnknownSessionAccepted))
	sid := e.session()
	wantStatus(t, e.send(http.MethodDelete, "", sessionHeader(sid)), http.StatusNoContent)
	wantStatus(t, e.post(pingBody, sessionHeader(sid)), http.StatusNotFound)
}

// nextIsNotTheMarker sends a marker notification on the GET stream and reports
// whether anything else arrived on s before it.
func nextIsNotTheMarker(t *testing.T, e *endpoint, sid string, s *sseStream) (bool, string) {
	t.Helper()
	if err := e.srv.Notify(sid, notification(t, 99)); err != nil {
		t.Fatal(err)
	}
	_, ev := s.wantMessage()
	return !strings.Contains(ev.data, `"data":99`), ev.data
}

// drain reads a response to its end, whatever it holds.
func drain(resp *http.Response) { _, _ = io.Copy(io.Discard, resp.Body) }

// endsWithin reports whether the stream ends, with nothing more on it, within d.
func (s *sseStream) endsWithin(d time.Duration) bool {
	got := make(chan error, 1)
	go func() {
		_, err := s.next()
		got <- err
	}()
	select {
	case err := <-got:
		return errors.Is(err, io.EOF)
	case <-time.After(d):
		_ = s.resp.Body.Close()
		<-got
		return false
	}
}

// session opens a session assuming as little as a mutant may break: the
// initialize response's headers carry the session id.
func (e *endpoint) session() string {
	e.t.Helper()
	resp := e.post(initializeBody("2025-11-25"))
	wantStatus(e.t, resp, http.StatusOK)
	_ = resp.Body.Close()
	return resp.Header.Get("Mcp-Session-Id")
}
