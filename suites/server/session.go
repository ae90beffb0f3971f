package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A session of the run's own, outside any check: the tool census's and the
// fixtures discovery's. No check's verdict rests on it, so it reports what
// went wrong as an error instead of failing anything.

// exchange sends the request on c and returns the response to id, or an
// error when ctx ends first, the connection ends, or the reply ended
// without it. Every other message the server sends meanwhile goes to seen
// (nil: dropped); a reply seen returns (to a request of the server's) is
// sent back at once.
func exchange(ctx context.Context, c conn, id jsonrpc.ID, method string, params any, seen func(*jsonrpc.Message) *jsonrpc.Message) (*jsonrpc.Message, error) {
	raw, err := jsonrpc.EncodeCall(id, method, params)
	if err != nil {
		return nil, err
	}
	sent := make(chan error, 1)
	go func() { sent <- c.send(raw) }()
	var ended <-chan struct{}
	take := func(m *jsonrpc.Message) (*jsonrpc.Message, error) {
		if responseTo(id)(m) {
			return m, nil
		}
		if seen == nil {
			return nil, nil
		}
		if reply := seen(m); reply != nil {
			b, err := jsonrpc.Encode(reply)
			if err == nil {
				err = c.send(b)
			}
			if err != nil {
				return nil, fmt.Errorf("its %s could not be answered: %w", m.Method, err)
			}
		}
		return nil, nil
	}
	for {
		select {
		case err := <-sent:
			if err != nil {
				return nil, err
			}
			if h, ok := c.(*httpConn); ok {
				ended = h.streamEnd
				if h.settled() {
					ended = closed
				}
			}
			sent = nil
		case m, ok := <-c.messages():
			if !ok {
				return nil, fmt.Errorf("the connection ended before the response to %s (%s)", method, c.silence(true))
			}
			if got, err := take(m); got != nil || err != nil {
				return got, err
			}
		case <-ended:
			// What the reply carried is delivered before its end.
			for {
				select {
				case m := <-c.messages():
					if got, err := take(m); got != nil || err != nil {
						return got, err
					}
				default:
					return nil, fmt.Errorf("its reply ended without the response (%s)", c.(*httpConn).last)
				}
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// closed is a channel that is closed.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// why says why an exchange got no result.
func why(m *jsonrpc.Message, err error) string {
	if err != nil {
		return err.Error()
	}
	return describe(m)
}

// handshake runs initialize on c, proposing 2025-11-25 with the client
// capabilities caps, then sends notifications/initialized; id 1 is the
// initialize's. seen is exchange's.
func handshake(ctx context.Context, c conn, caps map[string]any, seen func(*jsonrpc.Message) *jsonrpc.Message) (initResult, error) {
	var r initResult
	m, err := exchange(ctx, c, jsonrpc.IntID(1), "initialize", initializeParams(v1125, caps), seen)
	if err != nil || m.Error != nil {
		return r, fmt.Errorf("its initialize was not answered with a result (%s)", why(m, err))
	}
	_ = json.Unmarshal(m.Result, &r)
	if h, ok := c.(*httpConn); ok {
		h.version = r.ProtocolVersion
	}
	raw, err := jsonrpc.EncodeCall(jsonrpc.ID{}, "notifications/initialized", nil)
	if err == nil {
		err = c.send(raw)
	}
	return r, err
}

// walkTools walks tools/list on c (ids 2 on, one per page, at most
// run.MaxPages) and returns every tool as the server described it.
func walkTools(ctx context.Context, c conn, seen func(*jsonrpc.Message) *jsonrpc.Message) ([]json.RawMessage, error) {
	var tools []json.RawMessage
	cursor := ""
	for page := range run.MaxPages {
		m, err := exchange(ctx, c, jsonrpc.IntID(int64(2+page)), "tools/list", run.CursorParams(cursor), seen)
		if err != nil || m.Error != nil {
			return nil, fmt.Errorf("its tools/list was not answered with a result (%s)", why(m, err))
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		_ = json.Unmarshal(m.Result, &res)
		tools = append(tools, res.Tools...)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	return tools, nil
}
