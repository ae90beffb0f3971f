// Command mcpgo-client is mcpconform's client adapter (contract v1) for
// github.com/mark3labs/mcp-go, written as the library's documentation and
// examples show, with its defaults.
//
// stdio: client.NewStdioMCPClient starts MCPCONFORM_SERVER_COMMAND (with the
// adapter's environment and no additions). http:
// client.NewStreamableHttpClient connects to MCPCONFORM_SERVER_URL, then
// Client.Start. Either way Client.Initialize makes the session
// (server/discover first, initialize on a legacy server), Client.ListTools
// follows every nextCursor, Client.CallTool calls each tool with {} under a
// context deadline of MCPCONFORM_CALL_TIMEOUT_MS (the library's way to time
// a request out; over stdio it then sends notifications/cancelled), and
// Client.Close ends the session.
//
// It claims both eras. MCPCONFORM_ERA picks the version Initialize proposes:
// legacy 2025-11-25, which keeps the client on the initialize handshake;
// modern (and unset) mcp.LATEST_PROTOCOL_VERSION, 2026-07-28, which probes
// with server/discover and falls back to initialize on a legacy server. The
// connect line names the era of the version Initialize settled on.
//
// Over HTTP MCPCONFORM_HEADERS and MCPCONFORM_AUTH_TOKEN go in
// transport.WithHTTPHeaders, the library's option for headers sent on every
// request (the token as "Authorization: Bearer …"). The library has no
// setting for any MCPCONFORM_LIMITS key, so any override exits 127.
package main

import (
	"context"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpconform/mcpconform/peers/adapterhost"
)

// The library's limits that the contract has keys for.
const (
	// The stdio transport drains the server's stderr into a drop-oldest
	// buffer of the last 64 KiB (transport.stderrBufferSize), a constant.
	keyMaxStderrBytes = "max_stderr_bytes"
	maxStderrBytes    = 64 << 10
	// The streamable HTTP transport keeps a session id when the server sends
	// one and sends none otherwise (StreamableHTTP.SendRequest), so it
	// accepts stateless servers; there is no setting for it.
	keyAllowStateless = "allow_stateless"
)

func main() {
	adapterhost.Main("mcpgo-client", plan)
}

func plan(env adapterhost.Env) (adapterhost.Plan, error) {
	if err := adapterhost.RefuseLimits(env.Limits, func(string, int64) bool { return false }); err != nil {
		return adapterhost.Plan{}, err
	}
	var config map[string]int64
	var start func(ctx context.Context) (*client.Client, error)
	switch env.Transport {
	case "stdio":
		config = map[string]int64{keyMaxStderrBytes: maxStderrBytes}
		start = func(context.Context) (*client.Client, error) {
			// NewStdioMCPClient starts the transport itself.
			return client.NewStdioMCPClient(env.ServerCommand[0], nil, env.ServerCommand[1:]...)
		}
	case "http":
		config = map[string]int64{keyAllowStateless: 1}
		var opts []transport.StreamableHTTPCOption
		if headers := httpHeaders(env); len(headers) > 0 {
			opts = append(opts, transport.WithHTTPHeaders(headers))
		}
		start = func(ctx context.Context) (*client.Client, error) {
			c, err := client.NewStreamableHttpClient(env.ServerURL, opts...)
			if err != nil {
				return nil, err
			}
			if err := c.Start(ctx); err != nil {
				_ = c.Close()
				return nil, err
			}
			return c, nil
		}
	}
	version := mcp.LATEST_PROTOCOL_VERSION
	if env.Era == adapterhost.EraLegacy {
		version = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	return adapterhost.Plan{
		Config: config,
		Eras:   []string{adapterhost.EraLegacy, adapterhost.EraModern},
		Connect: func(ctx context.Context) (adapterhost.Session, error) {
			c, err := start(ctx)
			if err != nil {
				return nil, err
			}
			req := mcp.InitializeRequest{}
			req.Params.ProtocolVersion = version
			req.Params.ClientInfo = mcp.Implementation{Name: "mcpconform-mcpgo-client", Version: "v1.0.0"}
			res, err := c.Initialize(ctx, req)
			if err != nil {
				_ = c.Close()
				return nil, err
			}
			era := adapterhost.EraLegacy
			if mcp.IsModernProtocol(res.ProtocolVersion) {
				era = adapterhost.EraModern
			}
			return session{c, era}, nil
		},
	}, nil
}

// httpHeaders are the custom headers and the bearer token, as one map.
func httpHeaders(env adapterhost.Env) map[string]string {
	headers := make(map[string]string, len(env.Headers)+1)
	for k, v := range env.Headers {
		headers[k] = v
	}
	if env.AuthToken != "" {
		headers["Authorization"] = "Bearer " + env.AuthToken
	}
	return headers
}

// session is an initialized client.Client and the era it settled on.
type session struct {
	c   *client.Client
	era string
}

func (s session) Era() string { return s.era }

func (s session) ListTools(ctx context.Context) ([]string, error) {
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(res.Tools))
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}

func (s session) CallTool(ctx context.Context, name string) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = map[string]any{}
	_, err := s.c.CallTool(ctx, req)
	return err
}

func (s session) Close() error { return s.c.Close() }
