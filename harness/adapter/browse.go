package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// browse reads, where the server declares resources or prompts, the first
// page of each list and then each resource and prompt in it (a prompt with
// a text for each required argument), so that every request the server
// offers is exercised. The contract has no line for these steps: a failure
// is said on stderr.
func browse(session *mcpclient.Session, m mutant.Name, stderr io.Writer) {
	var caps struct {
		Resources json.RawMessage `json:"resources"`
		Prompts   json.RawMessage `json:"prompts"`
	}
	_ = json.Unmarshal(session.ServerCapabilities(), &caps) // unreadable: nothing declared
	if m == mutant.BrowseUndeclared {
		caps.Resources, caps.Prompts = json.RawMessage(`{}`), json.RawMessage(`{}`)
	}
	ctx := context.Background()
	report := func(err error) {
		if err != nil {
			fmt.Fprintln(stderr, "adapter:", err)
		}
	}
	if caps.Resources != nil {
		var page struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		}
		report(session.Call(ctx, "resources/list", nil, &page))
		for _, r := range page.Resources {
			report(session.Call(ctx, "resources/read", map[string]any{"uri": r.URI}, nil))
		}
	}
	if caps.Prompts != nil {
		var page struct {
			Prompts []struct {
				Name      string `json:"name"`
				Arguments []struct {
					Name     string `json:"name"`
					Required bool   `json:"required"`
				} `json:"arguments"`
			} `json:"prompts"`
		}
		report(session.Call(ctx, "prompts/list", nil, &page))
		for _, p := range page.Prompts {
			args := map[string]string{}
			for _, a := range p.Arguments {
				if a.Required {
					args[a.Name] = instance.Text
				}
			}
			report(session.Call(ctx, "prompts/get", map[string]any{"name": p.Name, "arguments": args}, nil))
		}
	}
}
