package client

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// What a server asks of a client: a sample, a form or a URL, its roots.
// The adapter is told the fixed answer (MCPCONFORM_SAMPLING,
// MCPCONFORM_ELICITATION, MCPCONFORM_ROOTS); the fake client-requests asks
// for what the client then declares, in the legacy era as requests to the
// client and in 2026-07-28 as an input round, and the checks judge the
// answers. A client that does not declare what it was told to answer is
// UNIMPLEMENTED, with the way to add it.

// sampleResult is the sampling result the checks tell the adapter to give.
const sampleResult = `{"role":"assistant","content":{"type":"text","text":"mcpconform sample"},"model":"mcpconform-model","stopReason":"endTurn"}`

// sharedRoots are the roots the checks tell the adapter to share.
var sharedRoots = []target.Root{{URI: "file:///tmp/mcpconform-root", Name: "mcpconform"}}

// answered is one adapter run against client-requests: what was asked of
// the client, and what it answered, by request key.
type answered struct {
	*exchange
	modern   bool
	version  string
	caps     map[string]json.RawMessage
	asked    map[string]bool
	answers  map[string]*jsonrpc.Message // the response: a result or an error
	received bool                        // in 2026-07-28, the client retried with answers
}

// askClient runs the adapter over t against client-requests with the
// answers a, and collects its answers.
func askClient(c *run.C, t check.Transport, a target.Answers) *answered {
	x := runOver(c, t, fake{Case: "client-requests"}, target.Invocation{Answers: a})
	wantReached(c, t, x)
	r := &answered{exchange: x, asked: map[string]bool{}, answers: map[string]*jsonrpc.Message{}}
	r.modern = x.count(fakeservers.MethodInitialize) == 0
	responses := map[string]*jsonrpc.Message{}
	for _, m := range x.Sent {
		switch {
		case r.modern && toolName(m) == fakeservers.ToolAsk:
			if r.caps == nil {
				r.caps, r.version = fakeservers.Capabilities(m), fakeservers.ModernVersion
			}
			for k, v := range fakeservers.ReadRetry(m).InputResponses {
				r.received = true
				responses[fakeservers.ReplyID(k).Key()] = &jsonrpc.Message{ID: fakeservers.ReplyID(k), Result: v}
			}
		case !r.modern && m.Kind() == jsonrpc.KindRequest && m.Method == fakeservers.MethodInitialize:
			r.caps, r.version = fakeservers.Handshake(m)
		case !r.modern && (m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError):
			responses[m.ID.Key()] = m
		}
	}
	for _, q := range fakeservers.ClientRequests(r.caps, r.version) {
		r.asked[q.Key] = true
		if m, ok := responses[fakeservers.ReplyID(q.Key).Key()]; ok {
			r.answers[q.Key] = m
		}
	}
	return r
}

// want is the client's answer to the request of key; a client that did
// not declare what it was told to answer (todo says what to declare) is
// UNIMPLEMENTED, one that never answered fails.
func (r *answered) want(c *run.C, t check.Transport, key, todo string) *jsonrpc.Message {
	if !r.asked[key] {
		c.Unimplemented(fmt.Sprintf("over %s the client, told how to answer, did not declare %s (it declared %s); %s", t, key, declaredNames(r.caps), todo))
	}
	if r.modern && !r.received {
		c.Unimplemented(fmt.Sprintf("over %s the client did not retry %s with inputResponses after its InputRequiredResult; %s", t, fakeservers.ToolAsk, todo))
	}
	m, ok := r.answers[key]
	where := fmt.Sprintf("a response to the request %s", fakeservers.ReplyID(key))
	if r.modern {
		where = fmt.Sprintf("an answer to the input request %q in the retry's inputResponses", key)
	}
	c.Require(ok, where+", since the client declared what it asks for", "over %s the client gave none", t)
	return m
}

// declaredNames lists the capabilities caps declares.
func declaredNames(caps map[string]json.RawMessage) string {
	if len(caps) == 0 {
		return "nothing"
	}
	return strings.Join(slices.Sorted(maps.Keys(caps)), ", ")
}

var _ = clientCheck(check.Descriptor{
	ID:    "client.sampling.answer",
	Title: "a client that declares sampling answers sampling/createMessage with role, content and model, or a user's refusal with -1",
	Requirement: "A client that declared sampling answers sampling/createMessage with a result holding role (user or assistant), a content block and the model's name; " +
		"a user's refusal is error -1 (legacy era).",
	Rules:    []string{"SM-02", "SM-06", "JR-27"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.SamplingNoModel},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		todo := fmt.Sprintf("to be certified, when %s is set declare sampling and answer sampling/createMessage with that result (or error -1 for %q)", target.EnvSampling, target.SamplingReject)
		r := askClient(c, t, target.Answers{Sampling: sampleResult})
		m := r.want(c, t, fakeservers.KeySample, todo)
		c.Require(m.Error == nil, "a sampling result", "over %s an error: %v", t, m.Error)
		problem := sampleProblem(m.Result)
		c.Require(problem == "", "a result with role user or assistant, a content block and a model name (SM-02)", "over %s: %s in %s", t, problem, m.Result)
		if r.modern {
			return // 2026-07-28 gives a refusal no shape inside inputResponses
		}
		r = askClient(c, t, target.Answers{Sampling: target.SamplingReject})
		m = r.want(c, t, fakeservers.KeySample, todo)
		if m.Error == nil {
			c.Unimplemented(fmt.Sprintf("over %s, told %s=%s, the client answered with a result (%s): the adapter does not give the refusal; %s",
				t, target.EnvSampling, target.SamplingReject, m.Result, todo))
		}
		c.Require(m.Error.Code == -1, "the user's refusal reported as error -1 (SM-06, JR-27)",
			"over %s, told %s=%s, the client answered %s", t, target.EnvSampling, target.SamplingReject, describeAnswer(m))
	})
})

var _ = clientCheck(check.Descriptor{
	ID: "client.elicitation.accept",
	Title: "an accepted form carries content of the form's schema with its defaults, also a form without mode; an accepted URL carries no content; " +
		"a completion for an elicitation never asked is ignored",
	Requirement: "A client that declared elicitation answers a form the user accepts with action accept and content matching the requested schema, " +
		"the defaults pre-filled, and from 2025-11-25 treats a request without mode as a form (EL-04); a URL the user consents to with action accept and no content; " +
		"in 2025-11-25 it ignores a notifications/elicitation/complete for an elicitation id it never got and goes on (EL-13).",
	Rules:    []string{"EL-06", "EL-17", "EL-07", "EL-04", "EL-13"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.ElicitationNoDefaults, mutant.ElicitationModeRequired, mutant.ElicitationCompleteUnknownFatal},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, target.Answers{Elicitation: target.ElicitAccept})
		m := r.wantAction(c, t, fakeservers.KeyForm, target.ElicitAccept)
		problem := acceptedFormProblem(m, r.version)
		c.Require(problem == "", "an elicitation result with action accept and content matching the form's schema, each default pre-filled (EL-06, EL-17)", "over %s: %s", t, problem)
		if r.asked[fakeservers.KeyFormModeless] {
			m, ok := r.answers[fakeservers.KeyFormModeless]
			problem := "no answer"
			if ok {
				problem = acceptedFormProblem(m, r.version)
			}
			c.RequireRuleAt("EL-04", check.MUST, problem == "", fmt.Sprintf("the form %s without mode answered as the form with mode was, accepted with its content", fakeservers.ReplyID(fakeservers.KeyFormModeless)),
				"over %s (version %s): %s", t, r.version, problem)
		}
		if !r.asked[fakeservers.KeyURL] {
			return
		}
		m = r.wantAction(c, t, fakeservers.KeyURL, target.ElicitAccept)
		var url struct {
			Action  string          `json:"action"`
			Content json.RawMessage `json:"content"`
		}
		c.Require(json.Unmarshal(m.Result, &url) == nil && url.Action == target.ElicitAccept && url.Content == nil,
			"a URL-mode consent: action accept without content (EL-07)", "over %s: %s", t, describeAnswer(m))
		if r.asked[fakeservers.KeyPingComplete] {
			_, ok := r.answers[fakeservers.KeyPingComplete]
			c.RequireRule("EL-13", ok, fmt.Sprintf("notifications/elicitation/complete for the elicitation id %q, never asked, ignored: the ping %s after it answered",
				fakeservers.UnknownElicitationID, fakeservers.ReplyID(fakeservers.KeyPingComplete)), "over %s the client answered nothing after it; its tool calls: %s", t, run.DescribeCalls(r.Calls))
		}
	})
})

// acceptedFormProblem says how m fails to accept the form of
// fakeservers.FormSchema in version: an error, another action, or content
// that does not match (formProblem); "" when it accepts it.
func acceptedFormProblem(m *jsonrpc.Message, version string) string {
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.Action != target.ElicitAccept {
		return describeAnswer(m) + ", not a result with action accept"
	}
	if problem := formProblem(res.Content, version); problem != "" {
		return fmt.Sprintf("%s in %s", problem, m.Result)
	}
	return ""
}

var _ = clientCheck(check.Descriptor{
	ID:          "client.elicitation.decline-cancel",
	Title:       "a form the user declines or cancels is answered with that action, not accepted",
	Requirement: "A client lets the user decline or cancel an elicitation at any time and answers with action decline or cancel as the user chose, never accept.",
	Rules:       []string{"EL-17", "EL-07"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.ElicitationDeclineIgnored},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		for _, action := range []string{target.ElicitDecline, target.ElicitCancel} {
			r := askClient(c, t, target.Answers{Elicitation: action})
			m := r.wantAction(c, t, fakeservers.KeyForm, action)
			var res struct {
				Action string `json:"action"`
			}
			c.Require(json.Unmarshal(m.Result, &res) == nil && res.Action == action,
				fmt.Sprintf("an elicitation result with action %s", action), "over %s, told %s=%s: %s", t, target.EnvElicitation, action, describeAnswer(m))
		}
	})
})

var _ = clientCheck(check.Descriptor{
	ID:          "client.roots.file-uris",
	Title:       "roots/list is answered with the client's roots, each a file:// URI",
	Requirement: "A client that declared roots answers roots/list with roots: [{uri, name?}], every uri a file:// URI.",
	Rules:       []string{"RT-03", "RT-02"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.RootsNotFile},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, target.Answers{Roots: sharedRoots})
		m := r.want(c, t, fakeservers.KeyRoots, rootsTodo)
		var res struct {
			Roots []target.Root `json:"roots"`
		}
		c.Require(m.Error == nil && json.Unmarshal(m.Result, &res) == nil, "a roots/list result", "over %s: %s", t, describeAnswer(m))
		if len(res.Roots) == 0 {
			c.Unimplemented(fmt.Sprintf("over %s, told %s, the client shared no roots: the adapter does not give them; %s", t, target.EnvRoots, rootsTodo))
		}
		for _, root := range res.Roots {
			c.Require(strings.HasPrefix(root.URI, "file://"), "every root uri a file:// URI (RT-03)", "over %s a root %q", t, root.URI)
		}
	})
})

var _ = clientCheck(check.Descriptor{
	ID:          "client.roots.list-changed-declared",
	Title:       "notifications/roots/list_changed only from a client that declared roots.listChanged",
	Requirement: "A client uses only the capabilities it negotiated: it sends notifications/roots/list_changed only when it declared roots with listChanged.",
	Rules:       []string{"LC-11", "RT-04"},
	KilledBy:    []mutant.Name{mutant.RootsListChangedUndeclared},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, target.Answers{Roots: sharedRoots})
		var roots struct {
			ListChanged bool `json:"listChanged"`
		}
		if json.Unmarshal(r.caps["roots"], &roots) != nil || r.caps["roots"] == nil {
			c.Unimplemented(fmt.Sprintf("over %s the client, told %s, did not declare roots (it declared %s); to be certified, declare roots when it is set", t, target.EnvRoots, declaredNames(r.caps)))
		}
		sent := 0
		for _, m := range r.Sent {
			if m.Kind() == jsonrpc.KindNotification && m.Method == "notifications/roots/list_changed" {
				sent++
			}
		}
		c.Require(roots.ListChanged || sent == 0, "no notifications/roots/list_changed from a client that declared roots without listChanged (LC-11)",
			"over %s the client sent %d", t, sent)
	})
})

// rootsTodo says what a client told its roots must do to be certified.
var rootsTodo = fmt.Sprintf("to be certified, when %s is set declare roots and answer roots/list with those roots", target.EnvRoots)

// wantAction is the client's answer to the elicitation of key, told the
// user's action: an error instead of a result is an adapter that does not
// give the action it was told (UNIMPLEMENTED).
func (r *answered) wantAction(c *run.C, t check.Transport, key, action string) *jsonrpc.Message {
	m := r.want(c, t, key, elicitTodo(action))
	if m.Error != nil {
		c.Unimplemented(fmt.Sprintf("over %s, told %s=%s, the client answered the %s elicitation with %s: the adapter does not give the action; %s",
			t, target.EnvElicitation, action, key, describeAnswer(m), elicitTodo(action)))
	}
	return m
}

// elicitTodo says what a client told action must do to be certified.
func elicitTodo(action string) string {
	return fmt.Sprintf("to be certified, when %s=%s declare elicitation (form mode; url too where it can) and answer every elicitation/create with action %s", target.EnvElicitation, action, action)
}

// describeAnswer is a response as the failure shows it.
func describeAnswer(m *jsonrpc.Message) string {
	if m.Error != nil {
		return fmt.Sprintf("error %d %q", m.Error.Code, m.Error.Message)
	}
	return "result " + string(m.Result)
}

// sampleProblem says what a sampling result lacks (SM-02), "" when it has
// role, content and model.
func sampleProblem(raw json.RawMessage) string {
	var res struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Model   *string         `json:"model"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "not an object with string role and model: " + err.Error()
	}
	switch {
	case res.Role != "user" && res.Role != "assistant":
		return fmt.Sprintf("role %q is neither user nor assistant", res.Role)
	case res.Model == nil || *res.Model == "":
		return "no model name"
	}
	blocks := []json.RawMessage{res.Content}
	if strings.HasPrefix(strings.TrimSpace(string(res.Content)), "[") && json.Unmarshal(res.Content, &blocks) != nil {
		return "content is not an array of blocks"
	}
	for _, b := range blocks {
		var block struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &block) != nil || block.Type == "" {
			return fmt.Sprintf("content %s is not a block with a type", b)
		}
	}
	return ""
}

// formProblem says how content fails fakeservers.FormSchema: a value of
// the wrong type or outside its enum or bounds, or a default not filled in
// (EL-06: every primitive's default from 2025-11-25, the boolean's in
// 2025-06-18); "" when it matches.
func formProblem(content map[string]any, version string) string {
	if content == nil {
		return "no content"
	}
	props := fakeservers.FormSchema["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		schema := props[name].(map[string]any)
		v, ok := content[name]
		if !ok {
			if version >= "2025-11-25" || schema["type"] == "boolean" {
				return fmt.Sprintf("%s is missing, though its default %v is to be pre-filled", name, schema["default"])
			}
			continue
		}
		if !matches(v, schema) {
			return fmt.Sprintf("%s = %v does not match its schema %v", name, v, schema)
		}
	}
	return ""
}

// matches reports whether v is of schema's primitive type, within its
// enum and bounds.
func matches(v any, schema map[string]any) bool {
	switch schema["type"] {
	case "string":
		s, ok := v.(string)
		if enum, has := schema["enum"].([]any); has {
			return ok && slices.Contains(enum, any(s))
		}
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer", "number":
		f, ok := v.(float64)
		if !ok || (schema["type"] == "integer" && f != float64(int64(f))) {
			return false
		}
		lo, hasLo := schema["minimum"].(int)
		hi, hasHi := schema["maximum"].(int)
		return (!hasLo || f >= float64(lo)) && (!hasHi || f <= float64(hi))
	}
	return false
}

var _ = clientCheck(check.Descriptor{
	ID:          "client.ping.answered",
	Title:       "a ping from the server in the middle of a call is answered with the empty result",
	Requirement: "A client answers a ping the server sends at any time, here while its tools/call is in progress, promptly with the empty result {}.",
	Rules:       []string{"PG-02", "PG-01"},
	KilledBy:    []mutant.Name{mutant.PingRefused},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, target.Answers{})
		m, ok := r.answers[fakeservers.KeyPing]
		c.Require(ok, fmt.Sprintf("a response to the server's ping %s, sent while the tools/call of %s waits (PG-02)", fakeservers.ReplyID(fakeservers.KeyPing), fakeservers.ToolAsk),
			"over %s the client gave none", t)
		c.Require(m.Error == nil && emptyResult(m.Result), "the empty result {} (PG-02)", "over %s: %s", t, describeAnswer(m))
	})
})

// emptyResult reports whether raw is an empty result: an object with
// nothing but, at most, _meta (the schema's EmptyResult).
func emptyResult(raw json.RawMessage) bool {
	var res map[string]json.RawMessage
	if json.Unmarshal(raw, &res) != nil || res == nil {
		return false
	}
	delete(res, "_meta")
	return len(res) == 0
}

var _ = clientCheck(check.Descriptor{
	ID:    "client.notifications.unknown-ignored",
	Title: "a notification of a method the client does not know is never answered, and the session goes on",
	Requirement: "A client never answers a notification, not even one whose method no version of MCP defines, and keeps working: " +
		"the ping the server sends after it is answered.",
	Rules:    []string{"JR-14", "PG-02"},
	KilledBy: []mutant.Name{mutant.UnknownNotificationAnswered},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, target.Answers{})
		replies := map[string]bool{}
		for key := range r.asked {
			replies[fakeservers.ReplyID(key).Key()] = true
		}
		for _, m := range r.Sent {
			if k := m.Kind(); (k == jsonrpc.KindResult || k == jsonrpc.KindError) && !replies[m.ID.Key()] {
				id := "none"
				if !m.ID.IsZero() {
					id = m.ID.String()
				}
				c.Failf(fmt.Sprintf("no response to the notification %s (JR-14): responses only to the fake's requests", fakeservers.MethodUnknown),
					"over %s the client sent a response to no request of the fake (id %s): %s", t, id, describeAnswer(m))
			}
		}
		_, ok := r.answers[fakeservers.KeyPing]
		c.Require(ok, fmt.Sprintf("an answer to the ping sent after %s: the client kept working (PG-02)", fakeservers.MethodUnknown), "over %s the client answered none", t)
	})
})
