package server

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/suites/run"
)

func init() { run.SetCensusTaker(takeCensus) }

// takeCensus is the run's tool census (run.StartCensus) of a server at a
// URL: on one legacy session of its own, declaring no capability, it lists
// the tools and calls every one the run's policy lets checks call (not
// the fixtures' slow tool, which is slow by name) with the arguments the
// checks give it, all at once, each on a POST of its own; a call
// unanswered within the tool budget is cancelled and its tool is slow.
// A server that serves no legacy era over HTTP is not counted: its checks
// wait for each tool themselves.
func takeCensus(ctx context.Context, cfg run.Options, answered func(tool string)) run.Census {
	if !run.ProbedEras()[check.HTTP].Legacy {
		return run.Census{Why: "the server serves no legacy era over HTTP"}
	}
	h := newHTTPConn(cfg.ServerURL, cfg.Patience, nil)
	defer h.close()
	if _, err := handshake(ctx, h, nil, nil); err != nil {
		return run.Census{Why: err.Error()}
	}
	raws, err := walkTools(ctx, h, nil)
	if err != nil {
		return run.Census{Why: err.Error()}
	}
	var tools []mcp.Tool
	policy, slowByName := cfg.ToolPolicy(), run.SlowTools(cfg.Fixtures)
	for _, raw := range raws {
		var t mcp.Tool // its inputSchema whole, for the arguments
		if json.Unmarshal(raw, &t) != nil || t.Name == "" || slices.Contains(slowByName, t.Name) {
			continue
		}
		if ok, _ := policy.Allows(t); ok {
			tools = append(tools, t)
			run.CensusCalls(t.Name)
		}
	}
	var mu sync.Mutex
	var slow []string
	var wg sync.WaitGroup
	for i, t := range tools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if answersWithin(ctx, h, cfg, jsonrpc.IntID(int64(1000+i)), t, censusArguments(cfg, t)) {
				answered(t.Name)
				return
			}
			mu.Lock()
			slow = append(slow, t.Name)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(slow)
	return run.Census{Taken: true, Slow: slow}
}

// censusArguments are the arguments the checks call t with: the fixtures
// file's for a tool it maps, else a valid instance of its inputSchema.
func censusArguments(cfg run.Options, t mcp.Tool) map[string]any {
	for _, f := range cfg.Fixtures {
		if f.Tool == t.Name && f.Arguments != nil {
			return f.Arguments
		}
	}
	return instance.Arguments(t.InputSchema)
}

// answersWithin calls t on a POST of its own in h's session and reports
// whether its reply ended within the tool budget: its response came, or
// its reply was refused or ended without it (the checks judge what such a
// tool does, a stream to resume among it). A call still unanswered at the
// budget is cancelled.
func answersWithin(ctx context.Context, h *httpConn, cfg run.Options, id jsonrpc.ID, t mcp.Tool, args map[string]any) bool {
	budget, cancel := context.WithTimeout(ctx, cfg.ToolBudget)
	defer cancel()
	call := newHTTPConn(h.url, 0, nil) // the budget bounds it
	call.session, call.version = h.session, h.version
	defer call.cancel() // not close: the session is h's
	if _, err := exchange(budget, call, id, "tools/call", map[string]any{"name": t.Name, "arguments": args}, nil); budget.Err() == nil || err == nil {
		return true
	}
	if raw, err := jsonrpc.EncodeCall(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform: the tool census waits no longer than the tool budget"}); err == nil {
		note := newHTTPConn(h.url, cfg.Patience, nil)
		note.session, note.version = h.session, h.version
		_ = note.send(raw)
		note.cancel()
	}
	return false
}
