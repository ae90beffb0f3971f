package httpfake

import (
	"sync"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// Cancellation over HTTP (CN-01, CN-03, CN-06, HT-26): a call the fake
// answers only late, once the client cancelled it.

func init() {
	cases["cancel-then-echo"] = fakeCase{
		desc: "offers slow and echo; slow is answered, late and with an error, on its own POST once a notifications/cancelled has arrived (not at all if the client left it); " +
			"echo waits for that cancel (at most Delay), then for slow's late answer (at most Delay), then is answered",
		build: cancelThenEcho,
	}
}

// cancelThenEcho holds slow until the client's notifications/cancelled
// arrives and then answers it late (fakeservers.LateAnswer), still on the
// POST that carried it when the client keeps that open; echo is answered
// after both, so the late answer reaches the client before its next
// call's.
func cancelThenEcho(o Options) (*behaviour, error) {
	var cancelOnce, lateOnce sync.Once
	cancelled, late := make(chan struct{}), make(chan struct{})
	return &behaviour{
		tools: []string{"slow", "echo"},
		call: func(x *exchange, c fakeservers.ToolCall) {
			if c.Name == "echo" {
				end := x.wait(cancelled, o.Delay)
				if end == waitReady {
					end = x.wait(late, o.Delay)
				}
				if end != waitGone {
					x.json(c.OK())
				}
				return
			}
			defer lateOnce.Do(func() { close(late) })
			if x.wait(cancelled, 0) == waitReady {
				x.json(fakeservers.LateAnswer(c.Req.ID))
			}
		},
		cancelled: func(x *exchange, _ *jsonrpc.Message) {
			cancelOnce.Do(func() { close(cancelled) })
			x.empty(202)
		},
	}, nil
}
