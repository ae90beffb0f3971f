package fakeservers

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// Protocol versions the fake speaks: the legacy era. It answers
// server/discover (the 2026-07-28 probe) with -32601, as a legacy server does.
var legacyVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// latestLegacyVersion is what initialize answers when the proposed version is
// not one the fake speaks.
const latestLegacyVersion = "2025-11-25"

// request answers every request but tools/call.
func (s *server) request(m *jsonrpc.Message) {
	switch m.Method {
	case "initialize":
		s.initialize(m)
	case "ping":
		s.respond(resultMessage(m.ID, struct{}{}))
	case "tools/list":
		s.respond(resultMessage(m.ID, toolList(s.b.tools)))
	default: // server/discover included
		s.respond(jsonrpc.NewError(m.ID, jsonrpc.CodeMethodNotFound, "Method not found"))
	}
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// initialize answers with the proposed version when the fake speaks it, after
// the case's delay (in the background: the fake reads on meanwhile).
func (s *server) initialize(m *jsonrpc.Message) {
	var params struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &params) // a malformed proposal gets the fallback version
	version := latestLegacyVersion
	if slices.Contains(legacyVersions, params.ProtocolVersion) {
		version = params.ProtocolVersion
	}
	reply := resultMessage(m.ID, initializeResult{
		ProtocolVersion: version,
		Capabilities:    map[string]any{"tools": struct{}{}},
		ServerInfo:      implementation{Name: "mcpconform-fake", Version: "1"},
	})
	if s.b.initDelay <= 0 {
		s.respond(reply)
		return
	}
	go func() {
		if s.sleep(s.b.initDelay) {
			s.respond(reply)
		}
	}()
}

type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
}

// toolList is the tools/list result offering names ("echo" when empty).
func toolList(names []string) any {
	if len(names) == 0 {
		names = []string{"echo"}
	}
	tools := make([]tool, len(names))
	for i, n := range names {
		tools[i] = tool{Name: n, Description: "mcpconform fake tool " + n, InputSchema: map[string]any{"type": "object"}}
	}
	return struct {
		Tools []tool `json:"tools"`
	}{tools}
}

// toolCall is one tools/call request.
type toolCall struct {
	req   *jsonrpc.Message
	name  string
	index int // arrival order among the fake's tools/call requests, from 0
}

func parseCall(m *jsonrpc.Message, index int) (toolCall, error) {
	var params struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(m.Params, &params); err != nil || params.Name == "" {
		return toolCall{}, errors.New(`tools/call needs params {"name": string}`)
	}
	return toolCall{req: m, name: params.Name, index: index}, nil
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callResult struct {
	Content []textContent `json:"content"`
}

// ok is the call's success response: text "ok <tool name>".
func (c toolCall) ok() *jsonrpc.Message {
	return resultMessage(c.req.ID, callResult{Content: []textContent{{Type: "text", Text: "ok " + c.name}}})
}

// call handles a tools/call through the case's hook, or answers ok.
func (s *server) call(c toolCall) {
	if s.b.call != nil {
		s.b.call(s, c)
		return
	}
	s.respond(c.ok())
}

// leaveUnanswered is the call hook of the never-answers cases.
func leaveUnanswered(s *server, c toolCall) {
	s.rec.Note(fmt.Sprintf("left tools/call %s unanswered", c.req.ID))
}

// resultMessage builds a success response. Only fixed Go types are encoded
// here, so an encoding failure is a bug in this package.
func resultMessage(id jsonrpc.ID, result any) *jsonrpc.Message {
	m, err := jsonrpc.NewResult(id, result)
	if err != nil {
		panic(fmt.Sprintf("fakeservers: encode result: %v", err))
	}
	return m
}
