package stdiofake

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The renamed-fixtures case: a server under test whose tools show the
// behaviours of the fixture roles under names none of the official
// fixtures has, so that only calling them tells which is which (the
// fixtures discovery). ask-user is not read-only and its description
// suggests elicitation, so a run with the safe-calling default leaves it
// alone and says it would call it; wipe is destructive and suggests no
// role: no run with that default calls it. doze, read-only, never answers.

// Tools of the renamed-fixtures case.
const (
	ToolCountSheep = "count-sheep"
	ToolChatter    = "chatter"
	ToolAskModel   = "ask-model"
	ToolAskUser    = "ask-user"
	ToolWipe       = "wipe"
	ToolDoze       = "doze"
)

// renamedFixtures is the case's behaviour: it learns what the client
// declared from its initialize; count-sheep reports progress 1 … 3 of 3
// for the call's progressToken, chatter logs one info message, ask-model
// asks a client that declared sampling for a sample and ask-user one that
// declared elicitation for a form (each awaited up to the fake's reply
// patience), then each answers; echo and wipe just answer, doze never.
func renamedFixtures(Options) (*behaviour, error) {
	readOnly := map[string]any{"readOnlyHint": true, "openWorldHint": false}
	a := &fakeservers.Asker{}
	return &behaviour{
		tools: []string{"echo", ToolCountSheep, ToolChatter, ToolAskModel, ToolAskUser, ToolWipe, ToolDoze},
		descriptions: map[string]string{
			"echo": "Says what it is given.", ToolCountSheep: "Counts to three.", ToolChatter: "Says hello.",
			ToolAskModel: "Answers a question.", ToolAskUser: "Elicits the user's name.", ToolWipe: "Deletes everything.", ToolDoze: "Sleeps.",
		},
		annotations: map[string]map[string]any{
			"echo": readOnly, ToolCountSheep: readOnly, ToolChatter: readOnly, ToolAskModel: readOnly, ToolDoze: readOnly,
			ToolAskUser: {"readOnlyHint": false}, ToolWipe: {"readOnlyHint": false, "destructiveHint": true},
		},
		received: func(_ *server, m *jsonrpc.Message) { a.Seen(m) },
		call:     func(s *server, c fakeservers.ToolCall) { renamedCall(s, a, c) },
	}, nil
}

// renamedCall answers one tools/call of the renamed-fixtures case.
func renamedCall(s *server, a *fakeservers.Asker, c fakeservers.ToolCall) {
	caps, _ := a.Declared()
	switch c.Name {
	case ToolDoze:
		leaveUnanswered(s, c)
		return
	case ToolCountSheep:
		var p struct {
			Meta struct {
				ProgressToken *jsonrpc.ID `json:"progressToken"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(c.Req.Params, &p)
		if token := p.Meta.ProgressToken; token != nil {
			s.stdout.group(func(w *lineWriter) {
				for i := 1; i <= 3; i++ {
					w.message(notification("notifications/progress", map[string]any{"progressToken": token, "progress": i, "total": 3}))
				}
			})
		}
	case ToolChatter:
		s.stdout.group(func(w *lineWriter) {
			w.message(notification("notifications/message", map[string]any{"level": "info", "logger": "fake", "data": "hello"}))
		})
	case ToolAskModel, ToolAskUser:
		capability, method, params := "sampling", "sampling/createMessage", map[string]any{
			"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "how many sheep?"}}}, "maxTokens": 16}
		if c.Name == ToolAskUser {
			capability, method, params = "elicitation", "elicitation/create", map[string]any{"message": "your name?", "requestedSchema": fakeservers.FormSchema}
		}
		if caps[capability] != nil {
			m, _ := jsonrpc.NewRequest(fakeservers.ReplyID(c.Name), method, params)
			if !s.ask(m, &a.Replies, fakeservers.ReplyPatience(s.o.Delay)) {
				return
			}
		}
	}
	s.respond(c.OK())
}

// notification builds a notification of the fake's; its params always
// encode.
func notification(method string, params map[string]any) *jsonrpc.Message {
	m, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		panic("stdiofake: build " + method + ": " + err.Error())
	}
	return m
}
