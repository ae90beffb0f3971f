package mcpserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// wireStep is one request of the reference conversation.
type wireStep struct{ method, params string }

// referenceConversation reaches every message the reference server sends:
// each list, every tool (with a progress token, at log level debug, its
// requests to the client answered), every prompt and resource, completion
// and subscription.
func referenceConversation() []wireStep {
	steps := []wireStep{
		{"ping", ""},
		{"logging/setLevel", `{"level":"debug"}`},
		{"tools/list", `{}`}, {"prompts/list", `{}`}, {"resources/list", `{}`}, {"resources/templates/list", `{}`},
		{"mcpconform/none", `{}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"a"}}`},
	}
	args := map[string]string{"test_sampling": `{"prompt":"p"}`, "test_elicitation": `{"message":"m"}`, "slow": `{"ms":1}`}
	for _, t := range serverTools {
		a := args[t.Name]
		if a == "" {
			a = "{}"
		}
		steps = append(steps, wireStep{"tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s,"_meta":{"progressToken":"p-%s"}}`, t.Name, a, t.Name)})
	}
	for _, p := range serverPrompts {
		a := map[string]string{}
		for _, arg := range p.Arguments {
			a[arg.Name] = "test://static-resource"
		}
		b, _ := json.Marshal(map[string]any{"name": p.Name, "arguments": a})
		steps = append(steps, wireStep{"prompts/get", string(b)})
	}
	for _, r := range serverResources {
		steps = append(steps, wireStep{"resources/read", fmt.Sprintf(`{"uri":%q}`, r.URI)},
			wireStep{"resources/subscribe", fmt.Sprintf(`{"uri":%q}`, r.URI)}, wireStep{"resources/unsubscribe", fmt.Sprintf(`{"uri":%q}`, r.URI)})
	}
	return steps
}

// Every message the reference server sends in the reference conversation
// validates against the schema of the version it negotiated.
func TestReferenceServerSendsSchemaValidMessages(t *testing.T) {
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s, err := wireschema.For(version)
			if err != nil {
				t.Fatal(err)
			}
			p := newPeer(t, "").answering(fixedReplies(t))
			answers := map[string]string{}
			judge := func() {
				for _, m := range p.drain() {
					raw, err := jsonrpc.Encode(m)
					if err != nil {
						t.Fatal(err)
					}
					var method string
					if m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError {
						method = answers[m.ID.Key()]
					}
					if v := s.Validate(raw, method); v != nil {
						t.Errorf("%v\n  message: %s", v, raw)
					}
				}
			}
			id := p.id()
			answers[id.Key()] = "initialize"
			p.handle(msg(id, "initialize", initParams(version, allCapabilities)))
			p.notify("notifications/initialized", "")
			judge()
			for _, st := range referenceConversation() {
				id := p.id()
				answers[id.Key()] = st.method
				p.handle(msg(id, st.method, st.params))
				judge()
			}
		})
	}
}
