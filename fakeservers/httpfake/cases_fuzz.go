package httpfake

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// FuzzScript is the per-call plan of the fuzz case, one entry per tool
// t1…tN, whatever order or how often the client calls them.
type FuzzScript struct {
	Calls []FuzzCall `json:"calls"`
}

// FuzzCall is what the fuzz case does on one tool's tools/call.
type FuzzCall struct {
	// Expire answers the call 404 in the first session, expiring it
	// (HT-56); a call in a later session is served.
	Expire bool `json:"expire,omitempty"`
	// Ping sends a ping request (id "ping-<tool>") on the call's SSE
	// stream and waits for the client's reply, at most Delay, before the
	// result (PG-01).
	Ping bool `json:"ping,omitempty"`
	// EventSize, when positive, sends the result as one SSE event of
	// exactly that many raw bytes (RM-09 counting); otherwise the result
	// is JSON (or, with Ping, a plain SSE event).
	EventSize int `json:"event_size,omitempty"`
}

// PingID is the id of the fuzz case's ping for a tool.
func PingID(tool string) string { return "ping-" + tool }

func fuzz(o Options) (*behaviour, error) {
	if o.Fuzz == nil || len(o.Fuzz.Calls) == 0 {
		return nil, errors.New("option Fuzz is required: the per-tool plan (FuzzScript)")
	}
	tools := numberedTools("t", len(o.Fuzz.Calls))
	plan := map[string]FuzzCall{}
	for i, t := range tools {
		plan[t] = o.Fuzz.Calls[i]
	}
	pings := &pendingPings{waiting: map[string]chan struct{}{}}
	return &behaviour{
		tools: tools,
		call: func(x *exchange, c fakeservers.ToolCall) {
			p := plan[c.Name]
			if p.Expire && firstSession(x) {
				x.expire()
				return
			}
			if !p.Ping && p.EventSize <= 0 {
				x.json(c.OK())
				return
			}
			fuzzSSE(x, c, p, pings, o.Delay)
		},
		reply: pings.arrived,
	}, nil
}

// fuzzSSE answers c as SSE: a priming event, the ping and its reply when
// planned, then the result (of exactly EventSize raw bytes when set).
func fuzzSSE(x *exchange, c fakeservers.ToolCall, p FuzzCall, pings *pendingPings, delay time.Duration) {
	var ev paddedEvent
	if p.EventSize > 0 {
		var err error
		if ev, err = planPadded(x.f.eventID(), paddedOK(c), int64(p.EventSize)); err != nil {
			x.json(jsonrpc.NewError(c.Req.ID, jsonrpc.CodeInternalError, "http fake: "+err.Error()))
			return
		}
	}
	s := x.sse("\n", false)
	if !s.priming(x.f.eventID(), 0) {
		return
	}
	if p.Ping {
		id := PingID(c.Name)
		replied := pings.expect(id)
		req, err := jsonrpc.NewRequest(jsonrpc.StringID(id), "ping", nil)
		if err != nil {
			panic(fmt.Sprintf("httpfake: build ping: %v", err))
		}
		if !s.message(x.f.eventID(), req) || x.wait(replied, delay) == waitGone {
			return
		}
	}
	if p.EventSize > 0 {
		x.answered = s.padded(ev)
		return
	}
	x.answered = s.message(x.f.eventID(), c.OK())
}

// pendingPings tracks the fuzz case's pings until their replies arrive.
type pendingPings struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

func (p *pendingPings) expect(id string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	p.waiting[jsonrpc.StringID(id).Key()] = ch
	return ch
}

func (p *pendingPings) arrived(m *jsonrpc.Message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := m.ID.Key()
	if ch, ok := p.waiting[key]; ok {
		close(ch)
		delete(p.waiting, key)
	}
}
