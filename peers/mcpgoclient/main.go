// Command mcpgo-client is mcpconform's client adapter (contract v1) for
// github.com/mark3labs/mcp-go, written as the library's documentation and
// examples show, with its defaults.
//
// stdio: transport.NewStdio runs MCPCONFORM_SERVER_COMMAND (with the
// adapter's environment and no additions). http:
// transport.NewStreamableHTTP connects to MCPCONFORM_SERVER_URL. Either
// transport goes to client.NewClient, the constructor that takes the
// handlers below (as examples/sampling_client does), and Client.Start
// starts it. Either way Client.Initialize makes the session
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
// The client answers what a server asks of it (legacy requests, or inside
// a 2026-07-28 InputRequiredResult) with the library's own handlers
// (client.With…Handler), each of which makes it declare the capability,
// answering as MCPCONFORM_ELICITATION, MCPCONFORM_SAMPLING and
// MCPCONFORM_ROOTS say (see user), else accepting every form as presented,
// sampling a fixed text and giving one fixed root; the library's
// multi-round-trip loop retries the call. Where a connection of
// 2026-07-28 meets a server that declares tools.listChanged, the adapter
// opens subscriptions/listen for toolsListChanged with Client.ListenAsync
// (the library's background form of Listen) and reports its verdict in
// the listen line; it is stopped before Close.
//
// Over HTTP MCPCONFORM_HEADERS and MCPCONFORM_AUTH_TOKEN go in
// transport.WithHTTPHeaders, the library's option for headers sent on every
// request (the token as "Authorization: Bearer …"). The library has no
// setting for any MCPCONFORM_LIMITS key, so any override exits 127.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
	var newTransport func() (transport.Interface, error)
	switch env.Transport {
	case "stdio":
		config = map[string]int64{keyMaxStderrBytes: maxStderrBytes}
		newTransport = func() (transport.Interface, error) {
			return transport.NewStdio(env.ServerCommand[0], nil, env.ServerCommand[1:]...), nil
		}
	case "http":
		config = map[string]int64{keyAllowStateless: 1}
		var opts []transport.StreamableHTTPCOption
		if headers := httpHeaders(env); len(headers) > 0 {
			opts = append(opts, transport.WithHTTPHeaders(headers))
		}
		newTransport = func() (transport.Interface, error) {
			return transport.NewStreamableHTTP(env.ServerURL, opts...)
		}
	}
	// Client.Start starts the transport too (for stdio, the server process,
	// under the Background context Run gives Connect).
	start := func(ctx context.Context) (*client.Client, error) {
		t, err := newTransport()
		if err != nil {
			return nil, err
		}
		u := user{env}
		c := client.NewClient(t, append(u.options(), client.WithElicitationHandler(u), client.WithSamplingHandler(u), client.WithRootsHandler(u))...)
		if err := c.Start(ctx); err != nil {
			_ = c.Close()
			return nil, err
		}
		return c, nil
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
			listChanged := res.Capabilities.Tools != nil && res.Capabilities.Tools.ListChanged
			return &session{c: c, era: era, toolsListChanged: listChanged}, nil
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

// user answers what a server asks of the client: as MCPCONFORM_SAMPLING,
// MCPCONFORM_ELICITATION and MCPCONFORM_ROOTS say where they are set, else
// the adapter's defaults (every form accepted as presented, one fixed text
// sampled, one fixed root).
type user struct{ env adapterhost.Env }

// options are the client options beyond the handlers: told an elicitation
// action, the client declares URL mode besides form mode (the handler
// alone declares {}, form only).
func (u user) options() []client.ClientOption {
	if u.env.Elicitation == "" {
		return nil
	}
	return []client.ClientOption{client.WithClientCapabilities(mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
	})}
}

// Elicit takes the user's action: accept submits a form as presented, its
// requested schema's defaults filled in, and consents to a URL without
// content; decline and cancel carry no content.
func (u user) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	action := u.env.Elicitation
	if action == "" {
		action = adapterhost.ElicitAccept
	}
	res := mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(action)}
	if action == adapterhost.ElicitAccept && req.Params.Mode != mcp.ElicitationModeURL {
		res.Content = adapterhost.FormDefaults(req.Params.RequestedSchema)
	}
	return &mcp.ElicitationResult{ElicitationResponse: res}, nil
}

// CreateMessage is the model: the result MCPCONFORM_SAMPLING gives, else one
// fixed text. A user's refusal can only be an error of the handler, which
// the library answers with -32603 (it has no way to choose the code).
func (u user) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	switch u.env.Sampling {
	case "":
		return &mcp.CreateMessageResult{
			SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("mcpconform adapter")},
			Model:           "mcpconform-fixed",
		}, nil
	case adapterhost.SamplingReject:
		return nil, errors.New("the user rejected the sampling request")
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal([]byte(u.env.Sampling), &res); err != nil {
		return nil, fmt.Errorf("%s does not decode as the library's CreateMessageResult: %w", adapterhost.EnvSampling, err)
	}
	return &res, nil
}

// ListRoots gives the roots MCPCONFORM_ROOTS names, else one fixed root.
func (u user) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	if u.env.Roots == nil {
		return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///mcpconform", Name: "mcpconform"}}}, nil
	}
	roots := make([]mcp.Root, len(u.env.Roots))
	for i, r := range u.env.Roots {
		roots[i] = mcp.Root{URI: r.URI, Name: r.Name}
	}
	return &mcp.ListRootsResult{Roots: roots}, nil
}

// session is an initialized client.Client, the era it settled on, whether
// its server declares tools.listChanged, and the subscription's stop.
type session struct {
	c                *client.Client
	era              string
	toolsListChanged bool
	stopListen       func()
}

func (s *session) Era() string { return s.era }

// Listen opens subscriptions/listen for toolsListChanged, in the
// 2026-07-28 era where the server declares tools.listChanged. ListenAsync
// returns once the stream is started; the library reports nothing of the
// acknowledgement, so its verdict is that of starting.
func (s *session) Listen(ctx context.Context) (bool, error) {
	if s.era != adapterhost.EraModern || !s.toolsListChanged {
		return false, nil
	}
	stop, err := s.c.ListenAsync(ctx, mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	s.stopListen = stop
	return true, err
}

func (s *session) ListTools(ctx context.Context) ([]string, error) {
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

func (s *session) CallTool(ctx context.Context, name string) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = map[string]any{}
	_, err := s.c.CallTool(ctx, req)
	return err
}

func (s *session) Close() error {
	if s.stopListen != nil {
		s.stopListen()
	}
	return s.c.Close()
}
