package httpserver_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/httpserver"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
)

// dropBody calls the "drop" method of dropping's handler.
const dropBody = `{"jsonrpc":"2.0","id":7,"method":"drop"}`

// dropping is the minimal server, plus a method "drop" whose handler sends
// a log notification "before", closes its stream's connection
// (mcpserver.Disconnect), sends "after", and answers whether it could close it.
// Closing at once instead, before "before", is "drop-first".
func dropping() httpserver.Config {
	server := NewMinimalServer()
	return httpserver.DefaultConfig(httpserver.HandlerFunc(
		func(ctx context.Context, s *httpserver.Session, req *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message {
			if req.Method != "drop" && req.Method != "drop-first" {
				return server.Handle(ctx, s, req, out)
			}
			log := func(text string) {
				note, _ := jsonrpc.NewNotification("notifications/message", map[string]any{"level": "info", "data": text})
				_ = out(note)
			}
			var err error
			if req.Method == "drop-first" {
				err = mcpserver.Disconnect(ctx)
			}
			log("before")
			if req.Method == "drop" {
				err = mcpserver.Disconnect(ctx)
			}
			log("after")
			if err != nil && !errors.Is(err, mcpserver.ErrCannotDisconnect) {
				return jsonrpc.NewError(req.ID, jsonrpc.CodeInternalError, err.Error())
			}
			resp, _ := jsonrpc.NewResult(req.ID, map[string]bool{"disconnected": err == nil})
			return resp
		}))
}

// logData is the data of a notifications/message.
func logData(t *testing.T, m *jsonrpc.Message) string {
	t.Helper()
	var p struct {
		Data string `json:"data"`
	}
	if m.Method != "notifications/message" {
		t.Fatalf("got %s %s, want a log notification", m.Kind(), m.Method)
	}
	decode(t, m.Params, &p)
	return p.Data
}

func TestPrimingEventsCarryTheRetryInterval(t *testing.T) {
	for _, c := range []struct {
		retry time.Duration
		want  string
	}{{0, strconv.FormatInt(httpserver.DefaultRetryInterval.Milliseconds(), 10)}, {1250 * time.Millisecond, "1250"}} {
		cfg := minimal("")
		cfg.RetryInterval = c.retry
		e := serve(t, cfg)
		sid := e.initialize("2025-11-25")
		post := openSSE(t, e.post(pingBody, sessionHeader(sid)))
		get := e.getStream(sid)
		for name, s := range map[string]*sseStream{"POST": post, "GET": get} {
			if p := s.wantPriming(); p.retry != c.want {
				t.Errorf("RetryInterval %v: the %s stream's priming event has retry %q, want %q", c.retry, name, p.retry, c.want)
			}
		}
	}
}

func TestDisconnectClosesTheConnectionAndTheClientResumes(t *testing.T) {
	for _, method := range []string{"drop", "drop-first"} {
		e := serve(t, dropping())
		sid := e.initialize("2025-11-25")
		post := openSSE(t, e.post(strings.Replace(dropBody, "drop", method, 1), sessionHeader(sid)))
		priming := post.wantPriming()
		if priming.retry == "" {
			t.Errorf("%s: the priming event before the close has no retry field", method)
		}
		last := priming.id
		if method == "drop" {
			m, ev := post.wantMessage()
			if logData(t, m) != "before" {
				t.Fatalf("%s: the POST stream carried %s first, want the log sent before the disconnect", method, m.Params)
			}
			last = ev.id
		}
		post.wantEnd()

		resumed := e.getStream(sid, lastEventHeader(last))
		if method == "drop-first" {
			if m, _ := resumed.wantMessage(); logData(t, m) != "before" {
				t.Fatalf("%s: resumed with %s, want the log sent after the disconnect", method, m.Params)
			}
		}
		if m, _ := resumed.wantMessage(); logData(t, m) != "after" {
			t.Fatalf("%s: resumed with %s, want the log sent after the disconnect", method, m.Params)
		}
		if result := wantResult(t, mustMessage(resumed), jsonrpc.IntID(7)); string(result) != `{"disconnected":true}` {
			t.Fatalf("%s: result %s", method, result)
		}
		resumed.wantEnd()
	}
}

func TestDisconnectNeedsAResumableStream(t *testing.T) {
	for _, c := range []struct {
		name    string
		version string
		change  func(*httpserver.Config)
	}{
		{"a 2025-06-18 session", "2025-06-18", func(*httpserver.Config) {}},
		{"a 2025-03-26 session", "2025-03-26", func(*httpserver.Config) {}},
		{"a server without GET", "2025-11-25", func(cfg *httpserver.Config) { cfg.EnableGET = false }},
		{"a stateless server", "2025-11-25", func(cfg *httpserver.Config) { cfg.Stateless = true }},
		{"JSON answers", "2025-11-25", func(cfg *httpserver.Config) { cfg.JSONResponse = true }},
	} {
		cfg := dropping()
		c.change(&cfg)
		e := serve(t, cfg)
		resp := e.post(initializeBody(c.version))
		wantStatus(t, resp, http.StatusOK)
		sid := resp.Header.Get("Mcp-Session-Id")
		readAnswer(t, resp)
		hs := []header{versionHeader(c.version)}
		if sid != "" {
			hs = append(hs, sessionHeader(sid))
		}
		answer := e.post(dropBody, hs...)
		wantStatus(t, answer, http.StatusOK)
		if result := wantResult(t, readAnswer(t, answer), jsonrpc.IntID(7)); string(result) != `{"disconnected":false}` {
			t.Errorf("%s: result %s, want the answer on the open connection", c.name, result)
		}
	}
}
