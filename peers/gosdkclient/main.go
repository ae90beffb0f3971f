// Command gosdk-client is mcpconform's client adapter (contract v1) for
// the official Go SDK (github.com/modelcontextprotocol/go-sdk), written as
// the SDK's documentation and examples show, with its defaults.
//
// stdio: mcp.CommandTransport runs MCPCONFORM_SERVER_COMMAND. http:
// mcp.StreamableClientTransport connects to MCPCONFORM_SERVER_URL. Either
// way mcp.Client.Connect makes the session (server/discover first, then
// initialize on a legacy server), ClientSession.Tools walks every page of
// tools/list, ClientSession.CallTool calls each tool with {} under a context
// deadline of MCPCONFORM_CALL_TIMEOUT_MS (the SDK's way to time a request
// out and cancel it), and ClientSession.Close ends the session.
//
// The client answers what a server asks of it (legacy requests, or inside
// a 2026-07-28 InputRequiredResult) with the SDK's own handlers
// (ClientOptions), which make it declare each capability, answering as
// MCPCONFORM_ELICITATION, MCPCONFORM_SAMPLING and MCPCONFORM_ROOTS say
// (see user), else accepting every form as presented and sampling a fixed
// text; roots are declared only when MCPCONFORM_ROOTS gives them. The
// SDK's multi-round-trip middleware, on by default, retries the call. ToolListChangedHandler (a no-op) makes Connect open
// subscriptions/listen for toolsListChanged where a server of 2026-07-28
// declares tools.listChanged; the listen line reports that it did.
//
// The SDK's transport has no option for custom headers or a static bearer
// token (its Authorization comes from an auth.OAuthHandler), so a case that
// sets MCPCONFORM_AUTH_TOKEN or MCPCONFORM_HEADERS exits 127, as does any
// MCPCONFORM_LIMITS override the SDK has no setting for.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/peers/adapterhost"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's limits that the contract has keys for.
const (
	// CommandTransport.TerminateDuration: Close waits this long after
	// closing the server's stdin, and again after SIGTERM, before SIGKILL;
	// zero selects the SDK's 5 s (cmd.go, defaultTerminateDuration).
	keyShutdownGrace     = "shutdown_grace_ms"
	defaultShutdownGrace = 5 * time.Second
	// StreamableClientTransport.MaxEventSize: the bytes buffered for one
	// server-sent event. Its documentation says zero selects
	// mcp.DefaultMaxEventSize (16 MiB), but StreamableClientTransport.Connect
	// hands the zero to scanEventsLimited unresolved, where zero means no cap
	// (the SSE transport resolves it; the streamable one does not). So the
	// default is declared as nothing, and only an override is echoed.
	keyMaxSSEEventSize = "max_sse_event_size"
	// The streamable client keeps a session id when the server sends one and
	// goes on without one otherwise (streamableClientConn.Write), so it
	// accepts stateless servers; there is no setting for it.
	keyAllowStateless = "allow_stateless"
)

func main() {
	adapterhost.Main("gosdk-client", plan)
}

func plan(env adapterhost.Env) (adapterhost.Plan, error) {
	if env.AuthToken != "" || len(env.Headers) > 0 {
		return adapterhost.Plan{}, adapterhost.Unsupported("custom headers and a static bearer token (StreamableClientTransport has neither; its Authorization comes from an OAuthHandler)")
	}
	var t mcp.Transport
	config := map[string]int64{}
	switch env.Transport {
	case "stdio":
		ct := &mcp.CommandTransport{Command: exec.Command(env.ServerCommand[0], env.ServerCommand[1:]...)}
		config[keyShutdownGrace] = defaultShutdownGrace.Milliseconds()
		err := adapterhost.RefuseLimits(env.Limits, func(k string, v int64) bool {
			if k != keyShutdownGrace || v <= 0 {
				return false
			}
			ct.TerminateDuration, config[k] = time.Duration(v)*time.Millisecond, v
			return true
		})
		if err != nil {
			return adapterhost.Plan{}, err
		}
		t = ct
	case "http":
		st := &mcp.StreamableClientTransport{Endpoint: env.ServerURL}
		config[keyAllowStateless] = 1
		err := adapterhost.RefuseLimits(env.Limits, func(k string, v int64) bool {
			if k != keyMaxSSEEventSize || v <= 0 {
				return false
			}
			st.MaxEventSize, config[k] = int(v), v
			return true
		})
		if err != nil {
			return adapterhost.Plan{}, err
		}
		t = st
	}
	listen := &listenWatch{}
	u := user{env}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpconform-gosdk-client", Version: "v1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler:     u.elicit,
		CreateMessageHandler:   u.sample,
		Capabilities:           u.capabilities(),
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
	})
	for _, r := range env.Roots {
		client.AddRoots(&mcp.Root{URI: r.URI, Name: r.Name})
	}
	client.AddSendingMiddleware(listen.middleware)
	var opts *mcp.ClientSessionOptions
	if v := versions[env.Era]; v != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: v}
	}
	return adapterhost.Plan{
		Config: config,
		Eras:   []string{adapterhost.EraLegacy, adapterhost.EraModern},
		Connect: func(ctx context.Context) (adapterhost.Session, error) {
			cs, err := client.Connect(ctx, t, opts)
			if err != nil {
				return nil, err
			}
			return session{cs, listen}, nil
		},
	}, nil
}

// versions are the protocol versions the adapter proposes in each era.
var versions = map[string]string{adapterhost.EraLegacy: "2025-11-25", adapterhost.EraModern: modernVersion}

// modernVersion is the first version of the modern era.
const modernVersion = "2026-07-28"

// user answers what a server asks of the client: as MCPCONFORM_SAMPLING,
// MCPCONFORM_ELICITATION and MCPCONFORM_ROOTS say where they are set, else
// the adapter's defaults (every form accepted as presented, one fixed text
// sampled, no roots declared).
type user struct{ env adapterhost.Env }

// capabilities are the client's own capabilities; the handlers add
// sampling and elicitation (form mode) to them. Roots are declared, with
// listChanged, only when MCPCONFORM_ROOTS is set: the SDK's default
// declares them always, and the SDK cannot decode an input round holding a
// roots/list without params (InputRequestMap.UnmarshalJSON; FINDINGS.md),
// which would break every call a server of 2026-07-28 asks anything of.
// Told an elicitation action, the client declares URL mode besides form.
func (u user) capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	if u.env.Roots != nil {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	if u.env.Elicitation != "" {
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	return caps
}

// elicit takes the user's action: accept submits a form as presented, its
// requested schema's defaults filled in, and consents to a URL without
// content; decline and cancel carry no content. (The SDK applies the
// schema's defaults too, SEP-1034, but only after it has validated the
// content, so empty content fails a form whose required field has a
// default: the user's form must show them.)
func (u user) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	action := u.env.Elicitation
	if action == "" {
		action = adapterhost.ElicitAccept
	}
	res := &mcp.ElicitResult{Action: action}
	if action == adapterhost.ElicitAccept && req.Params.Mode != "url" {
		res.Content = adapterhost.FormDefaults(req.Params.RequestedSchema)
	}
	return res, nil
}

// sample is the model: the result MCPCONFORM_SAMPLING gives, error -1 where
// the user refuses, else one fixed text.
func (u user) sample(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	switch u.env.Sampling {
	case "":
		return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "mcpconform adapter"}, Model: "mcpconform-fixed", Role: "assistant"}, nil
	case adapterhost.SamplingReject:
		return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "the user rejected the sampling request"}
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal([]byte(u.env.Sampling), &res); err != nil {
		return nil, fmt.Errorf("%s does not decode as the SDK's CreateMessageResult: %w", adapterhost.EnvSampling, err)
	}
	return &res, nil
}

// codeUserRejected is the error a user's refusal of a sampling request is
// reported with (the spec's example; the SDK has no constant for it).
const codeUserRejected = -1

// listenWatch sees, as a sending middleware, the subscriptions/listen that
// Connect opens: the SDK sends it without awaiting an answer and tells the
// caller nothing of its acknowledgement.
type listenWatch struct {
	mu     sync.Mutex
	opened bool
	err    error
}

func (w *listenWatch) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == methodListen {
			w.mu.Lock()
			w.opened, w.err = true, err
			w.mu.Unlock()
		}
		return res, err
	}
}

// methodListen is the 2026-07-28 subscription request.
const methodListen = "subscriptions/listen"

// session is a connected mcp.ClientSession and what it did about
// subscriptions/listen.
type session struct {
	cs     *mcp.ClientSession
	listen *listenWatch
}

// Listen reports the subscription Connect opened, if it opened one: the
// SDK's verdict is that of sending it.
func (s session) Listen(context.Context) (bool, error) {
	s.listen.mu.Lock()
	defer s.listen.mu.Unlock()
	return s.listen.opened, s.listen.err
}

// Era is the era of the protocol version the session settled on.
func (s session) Era() string {
	if r := s.cs.InitializeResult(); r != nil && r.ProtocolVersion >= modernVersion {
		return adapterhost.EraModern
	}
	return adapterhost.EraLegacy
}

func (s session) ListTools(ctx context.Context) ([]string, error) {
	var names []string
	for tool, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names = append(names, tool.Name)
	}
	return names, nil
}

func (s session) CallTool(ctx context.Context, name string) error {
	_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	return err
}

func (s session) Close() error { return s.cs.Close() }
