package fuzz

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	"github.com/leanovate/gopter/gen"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Tool is a tool of the server under test, as tools/list described it.
type Tool struct {
	Name   string
	Schema map[string]any
	// Output is its outputSchema; nil without one.
	Output json.RawMessage
	// Slow marks a tool that answers only when cancelled or after long:
	// the fuzzer calls it only together with its cancel.
	Slow bool
}

// The kinds of step the model chooses from; each sequence weighs them
// differently (swarm testing), so that some sequences hammer one thing.
const (
	stepInitialize = iota
	stepInitialized
	stepPing
	stepList
	stepCall
	stepCallInvalid
	stepSlowCancel
	stepCancel
	stepSetLevel
	stepSubscribe
	stepOther
	stepGarbage
	stepReusedID
	stepHTTP
	stepBurst
	stepCancelRace
	stepKinds
)

// state is the model of the session while a sequence is generated: the
// ids sent so far (for cancels and reused ids), the version asked for, the
// sequence's weights and favourite tool.
type state struct {
	next    int64
	ids     []string
	version string
	weights [stepKinds]int
	hot     int
	focus   bool
}

// model generates sequences for one server: its tools, the transport.
type model struct {
	tools     []Tool
	uris      []string // the resources the server listed
	prompts   []prompt // the prompts it listed
	transport string
}

// versions are the protocol versions the fuzzer's initialize asks for.
var versions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// initialState draws a sequence's weights: each kind of step is on with
// probability 3/4 and weighs 1 to 10; initialize comes first most often.
// Its request ids start after base: the sequences one process serves
// never share an id.
func (md *model) initialState(base int64) gopter.Gen {
	return gopter.CombineGens(
		gen.SliceOfN(stepKinds, gen.IntRange(-3, 10)),
		gen.IntRange(0, max(len(md.tools)-1, 0)),
		gen.IntRange(0, len(versions)-1),
		gen.IntRange(0, 3),
	).Map(func(v []any) *state {
		// One sequence in four hammers its favourite tool: what a leak or
		// a count-triggered bug needs.
		s := &state{next: base + 1, hot: v[1].(int), version: versions[v[2].(int)], focus: v[3].(int) == 0}
		for i, w := range v[0].([]int) {
			s.weights[i] = max(w, 0)
		}
		s.weights[stepInitialize] = 1
		if s.focus {
			s.weights[stepCall] = 60
		}
		s.weights[stepPing] = max(s.weights[stepPing], 1)
		if md.transport != "http" {
			s.weights[stepHTTP] = 0
		}
		if !md.hasSlow() {
			s.weights[stepSlowCancel] = 0
		}
		if len(md.callable()) == 0 {
			s.weights[stepCall], s.weights[stepCallInvalid] = 0, 0
		}
		return s
	})
}

func (md *model) hasSlow() bool {
	for _, t := range md.tools {
		if t.Slow {
			return true
		}
	}
	return false
}

// callable are the tools called directly (every one but the slow).
func (md *model) callable() []Tool {
	var out []Tool
	for _, t := range md.tools {
		if !t.Slow {
			out = append(out, t)
		}
	}
	return out
}

// step is one command of the model: the frames it sends.
type step struct {
	name   string
	frames []Frame
	ids    []string // the request ids it introduces
	run    func(sut commands.SystemUnderTest, s *step) commands.Result
	post   func(result commands.Result) *gopter.PropResult
}

func (s *step) Run(sut commands.SystemUnderTest) commands.Result { return s.run(sut, s) }
func (s *step) NextState(st commands.State) commands.State {
	prev := st.(*state)
	next := *prev
	next.ids = append(append([]string(nil), prev.ids...), s.ids...)
	if len(next.ids) > 16 {
		next.ids = next.ids[len(next.ids)-16:]
	}
	next.next = prev.next + int64(len(s.ids))
	return &next
}
func (s *step) PreCondition(commands.State) bool { return true }
func (s *step) PostCondition(_ commands.State, result commands.Result) *gopter.PropResult {
	return s.post(result)
}
func (s *step) String() string { return s.name }

// message renders a JSON-RPC message the fuzzer sends.
func message(id any, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b
}

// idOf renders id number n; every third request uses a string id.
func idOf(n int64) (any, string) {
	if n%3 == 0 {
		s := fmt.Sprintf("s%d", n)
		return s, `"` + s + `"`
	}
	return n, fmt.Sprint(n)
}

// maker builds a step from its name, frames and the request ids it
// introduces.
type maker func(name string, frames []Frame, ids []string) *step

// stepGen generates the next step for st. It draws straight from the
// generator's random source (a gopter.Gen is a function of it): a step is
// built only once its kind is drawn, which keeps generation far cheaper
// than a round trip.
func (md *model) stepGen(st *state, mk maker) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		total := 0
		for _, w := range st.weights {
			total += w
		}
		n := p.Rng.Intn(max(total, 1))
		kind := stepPing
		for k, w := range st.weights {
			if n < w {
				kind = k
				break
			}
			n -= w
		}
		s := md.build(kind, st, p, mk)
		if s == nil {
			id, key := idOf(st.next)
			s = mk("ping", []Frame{{Body: message(id, "ping", nil)}}, []string{key})
		}
		return gopter.NewGenResult(s, gopter.NoShrinker)
	}
}

// pick draws one of xs.
func pick[T any](p *gopter.GenParameters, xs ...T) T { return xs[p.Rng.Intn(len(xs))] }

// build makes a step of kind for st; nil when the kind has nothing to do.
func (md *model) build(kind int, st *state, p *gopter.GenParameters, mk maker) *step {
	id, key := idOf(st.next)
	request := func(name, method string, params any) *step {
		return mk(name, []Frame{{Body: message(id, method, params)}}, []string{key})
	}
	switch kind {
	case stepInitialize:
		v := st.version
		if p.Rng.Intn(4) == 0 {
			v = pick(p, versions...)
		}
		return request("initialize "+v, "initialize", map[string]any{"protocolVersion": v, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "mcpconform-fuzz", "version": "1"}})
	case stepInitialized:
		return mk("initialized", []Frame{{Body: message(nil, "notifications/initialized", nil)}}, nil)
	case stepPing:
		return request("ping", "ping", nil)
	case stepList:
		m := pick(p, "tools/list", "resources/list", "prompts/list", "resources/templates/list")
		return request(m, m, pick[any](p, nil, map[string]any{"cursor": "bm90LWEtY3Vyc29y"}, map[string]any{"cursor": 7}))
	case stepCall, stepCallInvalid:
		callable := md.callable()
		if len(callable) == 0 {
			return nil
		}
		t := callable[p.Rng.Intn(len(callable))]
		if kind == stepCall && (p.Rng.Intn(5) < 3 || st.focus && p.Rng.Intn(10) < 9) {
			t = callable[st.hot%len(callable)]
		}
		args := md.args(t, kind == stepCallInvalid, p)
		params := map[string]any{"name": t.Name, "arguments": args}
		name := "call " + t.Name
		if kind == stepCallInvalid {
			name += " with invalid arguments"
		} else if p.Rng.Intn(2) == 0 {
			params["_meta"] = map[string]any{"progressToken": "p" + key}
		}
		return request(name, "tools/call", params)
	case stepSlowCancel:
		// The call, then its cancel once the server shows it running: an
		// answer to the call before the answer to the probe ping after the
		// cancel breaks NoResponseAfterCancel (see cancel.go).
		for _, t := range md.tools {
			if t.Slow {
				call := message(id, "tools/call", map[string]any{"name": t.Name, "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": fmt.Sprintf("p%d", st.next)}})
				cancel := message(nil, "notifications/cancelled", map[string]any{"requestId": id, "reason": "fuzz"})
				return mk("call "+t.Name+" and cancel it once it runs", []Frame{{Body: call, Wait: WaitProgress}, {Body: cancel}}, []string{key})
			}
		}
		return nil
	case stepBurst:
		// Several requests in flight together, each answered once, in
		// any order.
		n := 2 + p.Rng.Intn(5)
		fs, ids, names := make([]Frame, n), make([]string, n), make([]string, n)
		for i := range n {
			rid, rkey := idOf(st.next + int64(i))
			var method string
			var params any
			names[i], method, params = md.plainRequest(p)
			fs[i], ids[i] = Frame{Body: message(rid, method, params), Wait: WaitNone}, rkey
		}
		fs[n-1].Wait = WaitAnswers
		return mk(fmt.Sprintf("%d requests in flight: %s", n, strings.Join(names, ", ")), fs, ids)
	case stepCancelRace:
		// A request and its cancel at once: the answer races the cancel,
		// and may come or not (CN-07), but at most once.
		name, method, params := md.plainRequest(p)
		cancel := message(nil, "notifications/cancelled", map[string]any{"requestId": id, "reason": "fuzz"})
		return mk(name+" and its cancel at once", []Frame{{Body: message(id, method, params), Wait: WaitNone}, {Body: cancel}}, []string{key})
	case stepCancel:
		targets := []string{`987654321`, `"no-such-request"`, `null`, `{"id":1}`}
		targets = append(targets, st.ids...)
		t := pick(p, targets...)
		return mk("cancel "+t, []Frame{{Body: message(nil, "notifications/cancelled", map[string]any{"requestId": json.RawMessage(t)})}}, nil)
	case stepSetLevel:
		l := pick(p, "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", "verbose", "")
		return request("setLevel "+l, "logging/setLevel", map[string]any{"level": l})
	case stepSubscribe:
		m := pick(p, "resources/subscribe", "resources/unsubscribe", "resources/read")
		params := []any{map[string]any{"uri": "mcpconform://no-such-resource"}, map[string]any{"uri": 5}, map[string]any{}}
		for range 3 {
			if len(md.uris) > 0 {
				params = append(params, map[string]any{"uri": pick(p, md.uris...)})
			}
		}
		return request(m, m, pick(p, params...))
	case stepOther:
		m := pick(p, "prompts/get", "completion/complete", "no/such/method", "sampling/createMessage")
		params := []any{nil, map[string]any{"name": "no_such_prompt"},
			map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "x"}, "argument": map[string]any{"name": "a", "value": ""}}}
		if len(md.prompts) > 0 {
			params = append(params, md.promptParams(m, pick(p, md.prompts...), p), md.promptParams(m, pick(p, md.prompts...), p))
		}
		return request(m+" request", m, pick(p, params...))
	case stepGarbage:
		// Its frame may carry the id (a request still, or a damaged one
		// that names it): the next request takes a new one.
		g := drawGarbage(id, p)
		return mk(g.name, []Frame{g.frame}, []string{key})
	case stepReusedID:
		if len(st.ids) == 0 {
			return nil
		}
		old := pick(p, st.ids...)
		return mk("ping reusing id "+old, []Frame{{Body: message(json.RawMessage(old), "ping", nil)}}, nil)
	case stepHTTP:
		return httpStep(id, key, p, mk)
	}
	return nil
}

// plainRequest draws a request every server answers at once, and how a
// step names it: a ping, a list, a call of a tool the policy allows with
// valid arguments, a read of a resource the server listed.
func (md *model) plainRequest(p *gopter.GenParameters) (name, method string, params any) {
	kinds := []string{"ping", "tools/list", "resources/list", "prompts/list"}
	callable := md.callable()
	if len(callable) > 0 {
		kinds = append(kinds, "tools/call")
	}
	if len(md.uris) > 0 {
		kinds = append(kinds, "resources/read")
	}
	switch k := pick(p, kinds...); k {
	case "tools/call":
		t := pick(p, callable...)
		return "call " + t.Name, k, map[string]any{"name": t.Name, "arguments": md.args(t, false, p)}
	case "resources/read":
		return "read", k, map[string]any{"uri": pick(p, md.uris...)}
	default:
		return k, k, nil
	}
}

// args draws a tool's arguments from its input schema.
func (md *model) args(t Tool, invalid bool, p *gopter.GenParameters) any {
	if invalid && p.Rng.Intn(4) == 0 {
		return pick[any](p, "not-an-object", 42, json.RawMessage("null"), []any{1})
	}
	v, ok := argsGen(t.Schema, invalid)(p).Retrieve()
	if !ok {
		return map[string]any{}
	}
	return v.(value).v
}

// httpStep makes an HTTP-only step: a wrong content type, a missing or
// foreign session id, a bad protocol-version header, DELETE.
func httpStep(id any, key string, p *gopter.GenParameters, mk maker) *step {
	variants := []struct{ name, header, value string }{
		{"Content-Type text/plain", "Content-Type", "text/plain"},
		{"no Content-Type", "Content-Type", ""},
		{"Accept text/html", "Accept", "text/html"},
		{"no session id", mcp.HeaderSessionID, ""},
		{"a foreign session id", mcp.HeaderSessionID, "foreign"},
		{"MCP-Protocol-Version 1999-01-01", mcp.HeaderProtocolVersion, "1999-01-01"},
		{"MCP-Protocol-Version not-a-version", mcp.HeaderProtocolVersion, "not-a-version"},
	}
	if p.Rng.Intn(len(variants)+1) == 0 {
		return mk("DELETE the session", []Frame{{Only: "http", Method: "DELETE"}}, nil)
	}
	v := pick(p, variants...)
	return mk("ping with "+v.name, []Frame{{Body: message(id, "ping", nil), Only: "http", Header: map[string]string{v.header: v.value}}}, []string{key})
}

// promptParams are the params of prompts/get (or, for completion/complete,
// of a completion of one of its arguments) for a prompt the server
// listed: every argument it names, each a word or an unusual string.
func (md *model) promptParams(method string, pr prompt, p *gopter.GenParameters) any {
	word := func() string {
		if p.Rng.Intn(3) == 0 {
			return pick(p, unusualStrings...)
		}
		return pick(p, "a", "fuzz", "42", "mcpconform")
	}
	if method == "completion/complete" && len(pr.args) > 0 {
		return map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": pr.name}, "argument": map[string]any{"name": pick(p, pr.args...), "value": word()}}
	}
	args := map[string]any{}
	for _, a := range pr.args {
		args[a] = word()
	}
	return map[string]any{"name": pr.name, "arguments": args}
}
