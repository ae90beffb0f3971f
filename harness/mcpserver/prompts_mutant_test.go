package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

func init() {
	serverRuleOf[mutant.PromptImageNotBase64] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		var r struct {
			Messages []struct {
				Content struct {
					Type string `json:"type"`
					Data string `json:"data"`
				} `json:"content"`
			} `json:"messages"`
		}
		resp := p.call("prompts/get", `{"name":"test_prompt_with_image"}`)
		if err := json.Unmarshal(resp.Result, &r); err != nil {
			t.Fatal(err)
		}
		for _, msg := range r.Messages {
			if _, err := base64.StdEncoding.DecodeString(msg.Content.Data); msg.Content.Type == "image" && err != nil {
				return true, "image data " + msg.Content.Data
			}
		}
		return false, string(resp.Result)
	}
	serverRuleOf[mutant.PromptMissingArgumentServed] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("prompts/get", `{"name":"test_prompt_with_arguments","arguments":{"arg1":"a"}}`)
		return resp.Error == nil, fmt.Sprintf("%s %+v", resp.Result, resp.Error)
	}
	serverRuleOf[mutant.CompletionValuesUnbounded] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		var r struct {
			Completion struct {
				Values []string `json:"values"`
			} `json:"completion"`
		}
		resp := p.call("completion/complete", `{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":""}}`)
		if err := json.Unmarshal(resp.Result, &r); err != nil {
			t.Fatal(err)
		}
		return len(r.Completion.Values) > maxCompletionValues, fmt.Sprintf("%d values", len(r.Completion.Values))
	}
}
