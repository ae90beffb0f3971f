package http

import (
	"context"
	nethttp "net/http"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/sse"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// getStream is a GET stream of a session, read in the background.
type getStream struct {
	Status int
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	events []sse.Event
}

// openGET opens the session's server→client stream. A server without one
// answers 405; the stream then has that status and no events.
func (p *probe) openGET(s session, lastEventID string) *getStream {
	ctx, cancel := context.WithCancel(p.c.Ctx)
	req, err := nethttp.NewRequestWithContext(ctx, nethttp.MethodGet, p.url, nil)
	if err != nil {
		cancel()
		p.c.Failf("a GET can be built", "%v", err)
	}
	req.Header.Set("Accept", mcp.ContentTypeSSE)
	for k, v := range s.headers() {
		req.Header.Set(k, v)
	}
	if lastEventID != "" {
		req.Header.Set(mcp.HeaderLastEventID, lastEventID)
	}
	g := &getStream{cancel: cancel, done: make(chan struct{})}
	p.c.Cleanup(g.close)
	resp, err := (&nethttp.Client{Transport: p.rt}).Do(req)
	if err != nil {
		cancel()
		close(g.done)
		p.c.Failf("the server answers GET", "%v", transcript.RedactError(err))
	}
	g.Status = resp.StatusCode
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode != nethttp.StatusOK || !isEventStream(ct) {
		resp.Body.Close()
		close(g.done)
		return g
	}
	go func() {
		defer close(g.done)
		defer resp.Body.Close()
		sse := sse.NewReader(resp.Body, maxBody)
		for {
			ev, err := sse.Next()
			if err != nil {
				return
			}
			g.mu.Lock()
			g.events = append(g.events, ev)
			g.mu.Unlock()
		}
	}()
	return g
}

// Events returns the events read so far.
func (g *getStream) Events() []sse.Event {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]sse.Event(nil), g.events...)
}

// Messages returns the JSON-RPC messages read so far.
func (g *getStream) Messages() []*jsonrpc.Message {
	var out []*jsonrpc.Message
	for _, ev := range g.Events() {
		if m, err := jsonrpc.Decode([]byte(ev.Data)); err == nil {
			out = append(out, m)
		}
	}
	return out
}

func (g *getStream) close() {
	g.cancel()
	<-g.done
}

func isEventStream(contentType string) bool {
	return len(contentType) >= len(mcp.ContentTypeSSE) && contentType[:len(mcp.ContentTypeSSE)] == mcp.ContentTypeSSE
}
