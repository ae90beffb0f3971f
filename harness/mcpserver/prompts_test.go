package mcpserver

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestPromptsGet(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, c := range []struct{ params, want string }{
		{`{"name":"test_simple_prompt"}`, `"text":"This is a simple prompt for testing."`},
		{`{"name":"test_prompt_with_arguments","arguments":{"arg1":"hello","arg2":"world"}}`, `arg1='hello', arg2='world'`},
		{`{"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://static-text"}}`, `"type":"resource"`},
		{`{"name":"test_prompt_with_image"}`, `"type":"image"`},
	} {
		wantServerResult(t, p.call("prompts/get", c.params), `"messages":[{"content":`, `"role":"user"`, c.want)
	}
}

func TestPromptsGetRefusesBadRequests(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, params := range []string{
		`{"name":"no_such_prompt"}`,
		`{"name":"test_prompt_with_arguments","arguments":{"arg1":"only one"}}`,
		`{"name":"test_prompt_with_embedded_resource"}`,
		`{}`,
	} {
		wantServerError(t, p.call("prompts/get", params), jsonrpc.CodeInvalidParams)
	}
}

func TestPromptsListDescribesArguments(t *testing.T) {
	p := newPeerWith(t, Options{PageSize: 10})
	p.initialize("{}")
	wantServerResult(t, p.call("prompts/list", ""), `"name":"test_prompt_with_arguments"`, `{"name":"arg1","description":"First test argument","required":true}`)
}
