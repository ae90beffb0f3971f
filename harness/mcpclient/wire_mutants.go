package mcpclient

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The branches of the mutants that break a rule of the messages the client
// sends (harness/mutant/client_wire_rules.go); the reference takes none.

// mutantMeta is params with the _meta key a mutant adds to every request
// after the handshake (JR-42, JR-45, JR-50, LG-02); the reference's params as
// they are.
func (s *Session) mutantMeta(params any) any {
	var key, value string
	switch s.opts.Mutant {
	case mutant.MetaKeyMalformed:
		key, value = "-mcpconform.dev/trace", "1"
	case mutant.MetaKeyReserved:
		key, value = "io.modelcontextprotocol/mcpconform-trace", "1"
	case mutant.TraceparentInvalid:
		key, value = "traceparent", "00-not-a-trace"
	case mutant.LogLevelInvalid:
		key, value = mcp.MetaLogLevel, "verbose"
	default:
		return params
	}
	obj, err := paramsObject(params)
	if err != nil {
		return params
	}
	meta, _ := json.Marshal(map[string]string{key: value}) // strings encode
	obj["_meta"] = meta
	return obj
}

// beforeInitializeResult is what a mutant sends between its initialize
// request and the response (LC-05, LC-06); the reference sends nothing.
func (s *Session) beforeInitializeResult() {
	switch s.opts.Mutant {
	case mutant.InitializedEarly:
		if n, err := jsonrpc.NewNotification("notifications/initialized", nil); err == nil {
			_ = s.t.Send(n)
		}
	case mutant.RequestBeforeInit:
		_, _ = s.start("tools/list", nil, nil) // its answer is never awaited
	}
}

// notUTF8ClientInfo is mutant NotUTF8's clientInfo: its name holds the
// byte 0xff, which is no UTF-8 (JR-02); json.RawMessage keeps it as it is.
func (s *Session) notUTF8ClientInfo() json.RawMessage {
	return json.RawMessage(`{"name":"` + s.opts.Name + "-\xff" + `","version":"` + s.opts.Version + `"}`)
}
