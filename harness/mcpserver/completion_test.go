package mcpserver

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestCompletionCompletes(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, c := range []struct{ params, want string }{
		{`{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"par"}}`,
			`{"completion":{"hasMore":false,"total":3,"values":["paris","park","party"]}}`},
		{`{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":"q"}}`,
			`{"completion":{"hasMore":false,"total":0,"values":[]}}`},
		{`{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"4"}}`,
			`{"completion":{"hasMore":false,"total":1,"values":["42"]}}`},
		{`{"ref":{"type":"ref/prompt","name":"test_prompt_with_embedded_resource"},"argument":{"name":"resourceUri","value":"test://static-"},"context":{"arguments":{}}}`,
			`"values":["test://static-text","test://static-binary"]`},
	} {
		wantServerResult(t, p.call("completion/complete", c.params), c.want)
	}
}

func TestCompletionRefusesUnknownRefs(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for _, params := range []string{
		`{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"arg1","value":""}}`,
		`{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg9","value":""}}`,
		`{"ref":{"type":"ref/resource","uri":"test://other/{x}"},"argument":{"name":"x","value":""}}`,
		`{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"name","value":""}}`,
		`{"argument":{"name":"arg1","value":""}}`,
	} {
		wantServerError(t, p.call("completion/complete", params), jsonrpc.CodeInvalidParams)
	}
}
