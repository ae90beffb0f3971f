package run

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// HTTPClientRun is what one check saw of an HTTP client: what its adapter
// printed and what the fake HTTP server recorded.
type HTTPClientRun struct {
	*target.Run
	Requests      []httpfake.Request
	MaxConcurrent int
	canonical     func(string) string
}

// ToolOf is the offered tool tools/call request m calls: its name, or for
// the name a conformance client calls (Options.ToolAlias) the tool it
// stands for.
func (r *HTTPClientRun) ToolOf(m *jsonrpc.Message) string {
	c, _ := fakeservers.ParseCall(m, 0)
	return r.canonical(c.Name)
}

// RunHTTPClient starts a fake HTTP server in this process, runs the
// client's adapter against it, and returns both sides' records. inv may set
// CallTimeout, Parallel, Limits, AuthToken, Headers and Era. In a check
// judging an era (For), the fake serves it and the adapter is told it
// unless fake.Era and inv.Era say otherwise.
func (c *C) RunHTTPClient(fake httpfake.Options, inv target.Invocation) *HTTPClientRun {
	c.requireTransport(transportHTTP)
	c.inEra(&fake.Era, &inv, transportHTTP)
	if fake.ToolAlias == "" {
		fake.ToolAlias = c.cfg.ToolAlias
	}
	f, err := httpfake.Start(fake)
	if err != nil {
		c.harnessError(err)
	}
	defer f.Close()
	inv.Case = c.D.ID
	inv.Transport = "http"
	inv.ServerURL = f.URL()
	if inv.CallTimeout <= 0 {
		inv.CallTimeout = c.cfg.Patience
	}
	if inv.Deadline <= 0 {
		inv.Deadline = c.cfg.CheckDeadline
	}
	if inv.AuthToken != "" {
		c.Secret(inv.AuthToken)
	}
	r, err := target.Adapter{Command: c.cfg.ClientAdapter}.Run(c.Ctx, inv)
	if err != nil {
		c.harnessError(err)
	}
	out := &HTTPClientRun{Run: r, Requests: f.Requests(), MaxConcurrent: f.MaxConcurrent(), canonical: f.Canonical}
	c.entries = httpTranscript(out.Requests)
	c.judgeRun(r, inv)
	return out
}

// httpTranscript renders the requests the fake saw: each POST body, and a
// note for every other method.
func httpTranscript(reqs []httpfake.Request) []transcript.Entry {
	var out []transcript.Entry
	for _, r := range reqs {
		if r.Method == "POST" {
			out = append(out, transcript.Entry{Dir: transcript.ClientToServer, Line: r.Body})
			continue
		}
		note := r.Method
		if r.Header.Get(mcp.HeaderLastEventID) != "" {
			note += " with Last-Event-ID"
		}
		out = append(out, transcript.Entry{Dir: transcript.Note, Line: note + fmt.Sprintf(" → %d", r.Status)})
	}
	return out
}

// Methods returns the JSON-RPC methods of the POSTs the fake saw, in order.
func (r *HTTPClientRun) Methods() []string {
	var out []string
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method != "" {
				out = append(out, m.Method)
			}
		}
	}
	return out
}

// Count returns how many POSTed messages had method.
func (r *HTTPClientRun) Count(method string) int {
	n := 0
	for _, m := range r.Methods() {
		if m == method {
			n++
		}
	}
	return n
}

// ByMethod returns the requests whose HTTP method is m.
func (r *HTTPClientRun) ByMethod(m string) []httpfake.Request {
	var out []httpfake.Request
	for _, q := range r.Requests {
		if strings.EqualFold(q.Method, m) {
			out = append(out, q)
		}
	}
	return out
}
