package mcpconformtest

import "net/http"

// Target is the server Server certifies: Handler, URL or Command.
type Target struct {
	handler http.Handler
	url     string
	command []string
}

// Handler is a server's streamable HTTP endpoint as an http.Handler: for
// the run it is served at /mcp of a listener on 127.0.0.1, closed when the
// test ends.
func Handler(h http.Handler) Target { return Target{handler: h} }

// URL is the streamable HTTP endpoint of a running server.
func URL(u string) Target { return Target{url: u} }

// Command is a stdio server: the argv of the process each check starts.
func Command(argv ...string) Target { return Target{command: argv} }

// With is t and o together: a server over streamable HTTP (Handler or URL)
// and over stdio (Command), both certified in one run, as
// mcpconform server --url U -- CMD… does.
func (t Target) With(o Target) Target {
	if t.handler == nil {
		t.handler = o.handler
	}
	if t.url == "" {
		t.url = o.url
	}
	if len(t.command) == 0 {
		t.command = o.command
	}
	return t
}
