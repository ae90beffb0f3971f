package stdiofake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// swapIDs is the call hook of id-swap: an error response whose id has the
// other JSON type, then the real result. A client that routes by id value
// alone (NG-12) takes the error for its call.
func swapIDs(s *server, c fakeservers.ToolCall) {
	s.stdout.group(func(w *lineWriter) {
		w.message(jsonrpc.NewError(swappedID(c.Req.ID), jsonrpc.CodeInternalError, "wrong id type"))
		w.message(c.OK())
	})
}

// swappedID returns id with the other JSON type: 7 → "7", "7" → 7, and a
// string that is no integer → -1.
func swappedID(id jsonrpc.ID) jsonrpc.ID {
	if !id.IsString() {
		return jsonrpc.StringID(id.String())
	}
	var text string
	if json.Unmarshal([]byte(id.String()), &text) == nil {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return jsonrpc.IntID(n)
		}
	}
	return jsonrpc.IntID(-1)
}

// Defaults of reverse-order.
const (
	defaultReverseTools  = 4
	defaultReverseWindow = 2 * time.Second
)

// reverseOrder offers ok-1, err-2, ok-3, … and answers each batch of --tools
// calls out of arrival order (flipKinds). A batch is answered when full or --delay
// (default 2s) after its first call, whichever comes first.
func reverseOrder(o Options) (*behaviour, error) {
	if o.Tools < 0 {
		return nil, fmt.Errorf("--tools must be 0 (the default, %d) or more, got %d", defaultReverseTools, o.Tools)
	}
	if o.Delay < 0 {
		return nil, fmt.Errorf("--delay must be 0 (the default, %s) or more, got %s", defaultReverseWindow, o.Delay)
	}
	r := &reverser{n: o.Tools, window: o.Delay}
	if r.n == 0 {
		r.n = defaultReverseTools
	}
	if r.window == 0 {
		r.window = defaultReverseWindow
	}
	names := make([]string, r.n)
	for i := range names {
		if i%2 == 0 {
			names[i] = "ok-" + strconv.Itoa(i+1)
		} else {
			names[i] = "err-" + strconv.Itoa(i+1)
		}
	}
	return &behaviour{tools: names, call: r.add}, nil
}

// reverser gathers tools/call requests into batches.
type reverser struct {
	n      int
	window time.Duration

	mu    sync.Mutex
	batch []fakeservers.ToolCall
	gen   int // counts the batches taken; a stale timer finds it moved on
}

// add is the call hook: it joins c to the open batch and answers the batch
// once it is full.
func (r *reverser) add(s *server, c fakeservers.ToolCall) {
	r.mu.Lock()
	r.batch = append(r.batch, c)
	if len(r.batch) == 1 {
		gen := r.gen
		time.AfterFunc(r.window, func() { r.answer(s, r.take(gen)) })
	}
	var full []fakeservers.ToolCall
	if len(r.batch) >= r.n {
		full = r.takeLocked()
	}
	r.mu.Unlock()
	r.answer(s, full)
}

// take returns batch gen if it is still open.
func (r *reverser) take(gen int) []fakeservers.ToolCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen != gen {
		return nil
	}
	return r.takeLocked()
}

func (r *reverser) takeLocked() []fakeservers.ToolCall {
	b := r.batch
	r.batch = nil
	r.gen++
	return b
}

// answer answers a batch out of arrival order, so that the k-th answer
// goes to a call of the other kind than the k-th to arrive wherever it can
// (err-* tools get a JSON-RPC error, the others success): a client that
// pairs answers with calls by order, not by id, gets kinds wrong whatever
// order it sent them in. Handlers join the batch in whatever order the
// scheduler runs them, so arrival is the reader's order (index).
func (r *reverser) answer(s *server, calls []fakeservers.ToolCall) {
	slices.SortFunc(calls, func(a, b fakeservers.ToolCall) int { return a.Index - b.Index })
	for _, c := range flipKinds(calls) {
		if s.ctx.Err() != nil {
			return
		}
		if isErrTool(c) {
			s.respond(jsonrpc.NewError(c.Req.ID, jsonrpc.CodeInternalError, c.Name+" failed, as scripted"))
		} else {
			s.respond(c.OK())
		}
	}
}

func isErrTool(c fakeservers.ToolCall) bool { return strings.HasPrefix(c.Name, "err-") }

// flipKinds orders calls (in arrival order) for answering: position k holds
// a call of the other kind than calls[k] while one is left, latest arrival
// first, then the rest latest first.
func flipKinds(calls []fakeservers.ToolCall) []fakeservers.ToolCall {
	used := make([]bool, len(calls))
	pick := func(want func(fakeservers.ToolCall) bool) int {
		for i := len(calls) - 1; i >= 0; i-- {
			if !used[i] && want(calls[i]) {
				return i
			}
		}
		return -1
	}
	order := make([]fakeservers.ToolCall, 0, len(calls))
	for _, arrived := range calls {
		i := pick(func(c fakeservers.ToolCall) bool { return isErrTool(c) != isErrTool(arrived) })
		if i < 0 {
			i = pick(func(fakeservers.ToolCall) bool { return true })
		}
		used[i] = true
		order = append(order, calls[i])
	}
	return order
}
