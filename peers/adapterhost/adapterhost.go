// Package adapterhost is the side of mcpconform's client adapter contract
// (v1) that the client peers share: it reads the MCPCONFORM_ variables,
// prints the config, connect, listen, list, tool and close lines, times each step,
// calls the tools in order or at once, and exits with the contract's
// status. Each client peer brings only what is its library's: how to
// connect, list, call and close. Like peerhost it is a module of its own
// without dependencies, so no library leaks into another peer.
package adapterhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// The contract's environment variables.
const (
	EnvTransport     = "MCPCONFORM_TRANSPORT"
	EnvServerCommand = "MCPCONFORM_SERVER_COMMAND"
	EnvServerURL     = "MCPCONFORM_SERVER_URL"
	EnvCallTimeoutMS = "MCPCONFORM_CALL_TIMEOUT_MS"
	EnvParallel      = "MCPCONFORM_PARALLEL"
	EnvAuthToken     = "MCPCONFORM_AUTH_TOKEN"
	EnvHeaders       = "MCPCONFORM_HEADERS"
	EnvLimits        = "MCPCONFORM_LIMITS"
	// EnvEra is the era the client is to speak: "legacy" (the initialize
	// handshake) or "modern" (2026-07-28); unset, the library chooses.
	EnvEra = "MCPCONFORM_ERA"
	// EnvSampling, EnvElicitation and EnvRoots are the fixed answers to
	// what a server asks of the client; each, set, asks the client to
	// declare the capability and answer with it (see Env).
	EnvSampling    = "MCPCONFORM_SAMPLING"
	EnvElicitation = "MCPCONFORM_ELICITATION"
	EnvRoots       = "MCPCONFORM_ROOTS"
)

// SamplingReject is the value of EnvSampling for a user who refuses every
// sampling request (the client answers with error -1).
const SamplingReject = "reject"

// The user's actions of EnvElicitation, as an elicitation result says them.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// Root is one root the client shares (EnvRoots).
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// The eras of EnvEra, of Plan.Eras and of the connect line.
const (
	EraLegacy = "legacy"
	EraModern = "modern"
)

// Exit statuses: ExitUnsupported tells mcpconform the adapter cannot run
// the case (the check is UNIMPLEMENTED); ExitUsage is a broken invocation.
const (
	ExitUnsupported = 127
	ExitUsage       = 2
)

// ErrUnsupported wrapped in the error of a Plan function means the library
// cannot do what the case asks (a transport, headers, a limit override).
var ErrUnsupported = errors.New("not supported by this client library")

// Unsupported returns an error wrapping ErrUnsupported.
func Unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// Env is one invocation, as the contract's variables describe it.
type Env struct {
	Transport     string            // "stdio" or "http"
	ServerCommand []string          // stdio: the server's argv
	ServerURL     string            // http: the endpoint
	CallTimeout   time.Duration     // 0: not given, no timeout
	Parallel      bool              // call the tools at once
	AuthToken     string            // http, optional bearer token
	Headers       map[string]string // http, optional custom headers
	Limits        map[string]int64  // optional limit overrides
	Era           string            // "legacy", "modern", or "": the library's choice
	// Sampling is the JSON object of the sampling result to answer with,
	// or SamplingReject; "": not given.
	Sampling string
	// Elicitation is the user's action on every elicitation (ElicitAccept:
	// a form submitted as presented, its defaults filled in; a URL
	// consented to), ElicitDecline or ElicitCancel; "": not given.
	Elicitation string
	// Roots are the roots to share; nil: not given.
	Roots []Root
}

// ReadEnv reads the contract's variables from the environment.
func ReadEnv() (Env, error) {
	return readEnv(os.Getenv)
}

func readEnv(getenv func(string) string) (Env, error) {
	e := Env{Transport: getenv(EnvTransport), ServerURL: getenv(EnvServerURL), AuthToken: getenv(EnvAuthToken)}
	switch e.Transport {
	case "stdio":
		raw := getenv(EnvServerCommand)
		if err := json.Unmarshal([]byte(raw), &e.ServerCommand); err != nil || len(e.ServerCommand) == 0 {
			return e, fmt.Errorf("%s must be a non-empty JSON array of strings, got %q", EnvServerCommand, raw)
		}
	case "http":
		if e.ServerURL == "" {
			return e, fmt.Errorf("%s is not set; mcpconform client sets it for every HTTP check", EnvServerURL)
		}
	case "":
		return e, fmt.Errorf("%s is not set; mcpconform client sets it for every check", EnvTransport)
	default:
		return e, Unsupported("transport %q", e.Transport)
	}
	if raw := getenv(EnvCallTimeoutMS); raw != "" {
		ms, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || ms <= 0 {
			return e, fmt.Errorf("%s must be a positive number of milliseconds, got %q", EnvCallTimeoutMS, raw)
		}
		e.CallTimeout = time.Duration(ms) * time.Millisecond
	}
	e.Parallel = getenv(EnvParallel) == "1"
	switch e.Era = getenv(EnvEra); e.Era {
	case "", EraLegacy, EraModern:
	default:
		return e, fmt.Errorf("%s must be %q or %q (or unset), got %q", EnvEra, EraLegacy, EraModern, e.Era)
	}
	if err := readAnswers(getenv, &e); err != nil {
		return e, err
	}
	if raw := getenv(EnvHeaders); raw != "" {
		if err := json.Unmarshal([]byte(raw), &e.Headers); err != nil {
			return e, fmt.Errorf("%s must be a JSON object of strings, got %q: %v", EnvHeaders, raw, err)
		}
	}
	if raw := getenv(EnvLimits); raw != "" {
		if err := json.Unmarshal([]byte(raw), &e.Limits); err != nil {
			return e, fmt.Errorf("%s must be a JSON object of non-negative integers, got %q: %v", EnvLimits, raw, err)
		}
	}
	return e, nil
}

// readAnswers reads EnvSampling, EnvElicitation and EnvRoots into e, each
// checked as mcpconform checks them.
func readAnswers(getenv func(string) string, e *Env) error {
	e.Sampling, e.Elicitation = getenv(EnvSampling), getenv(EnvElicitation)
	if e.Sampling != "" && e.Sampling != SamplingReject {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(e.Sampling), &obj); err != nil || obj == nil {
			return fmt.Errorf("%s must be the JSON object of a sampling result or %q, got %q", EnvSampling, SamplingReject, e.Sampling)
		}
	}
	switch e.Elicitation {
	case "", ElicitAccept, ElicitDecline, ElicitCancel:
	default:
		return fmt.Errorf("%s must be %s, %s or %s, got %q", EnvElicitation, ElicitAccept, ElicitDecline, ElicitCancel, e.Elicitation)
	}
	if raw := getenv(EnvRoots); raw != "" {
		if err := json.Unmarshal([]byte(raw), &e.Roots); err != nil || e.Roots == nil {
			return fmt.Errorf(`%s must be a JSON array of roots ([{"uri":"file:///…","name":"…"}]), got %q`, EnvRoots, raw)
		}
		for i, r := range e.Roots {
			if r.URI == "" {
				return fmt.Errorf("%s: root %d has no uri", EnvRoots, i)
			}
		}
	}
	return nil
}

// FormDefaults is the content of a form as the user is shown it and
// submits it unchanged: every property of the requested schema (as the
// library holds it: a map, a struct, raw JSON) that has a default, set to
// it. A schema that does not encode as an object with properties gives
// empty content.
func FormDefaults(schema any) map[string]any {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	raw, ok := schema.(json.RawMessage)
	if !ok {
		raw, _ = json.Marshal(schema) // a library's schema value: an error leaves raw empty
	}
	_ = json.Unmarshal(raw, &s) // a schema without properties has no defaults
	content := map[string]any{}
	for name, p := range s.Properties {
		if d, ok := p["default"]; ok {
			content[name] = d
		}
	}
	return content
}

// Session is a connected client, as the library offers it.
type Session interface {
	// ListTools returns the names of every tool, all pages followed.
	ListTools(ctx context.Context) ([]string, error)
	// CallTool calls the tool with arguments {}. A JSON-RPC error (or a
	// transport failure) is an error; a result, even one with isError, is
	// not.
	CallTool(ctx context.Context, name string) error
	// Close closes the client the library's normal way.
	Close() error
}

// EraSession is a Session that can tell the era its connection chose
// ("legacy" or "modern"); the connect line then names it.
type EraSession interface {
	Session
	Era() string
}

// ListenSession is a Session whose client may open a 2026-07-28
// subscriptions/listen stream (for toolsListChanged, where the server
// declares tools.listChanged); the listen line then gives the library's
// verdict on it.
type ListenSession interface {
	Session
	// Listen opens the client's subscription, or reports the one its
	// connection opened, the library's way: whether there is one, and the
	// error the library gave it (nil when it took the subscription as
	// open). The subscription lives until Close.
	Listen(ctx context.Context) (opened bool, err error)
}

// Plan is what a library makes of one invocation.
type Plan struct {
	// Config holds the limits the client really enforces, by contract key
	// (max_sse_event_size, …); printed as the config line unless empty.
	Config map[string]int64
	// Eras are the eras the client claims (printed in the config line as
	// "eras"); none means the legacy era alone.
	Eras []string
	// Connect starts the client and completes the handshake.
	Connect func(ctx context.Context) (Session, error)
}

// Main runs the contract with the plan the library makes of the
// environment, and exits: 0 after a run (whatever its outcomes), 127 when
// the plan reports ErrUnsupported, 2 on a broken invocation.
func Main(name string, plan func(Env) (Plan, error)) {
	os.Exit(run(name, os.Getenv, os.Stdout, os.Stderr, plan))
}

func run(name string, getenv func(string) string, stdout, stderr io.Writer, plan func(Env) (Plan, error)) int {
	env, err := readEnv(getenv)
	if err == nil {
		var p Plan
		if p, err = plan(env); err == nil {
			Run(env, p, &Printer{w: stdout})
			return 0
		}
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	if errors.Is(err, ErrUnsupported) {
		return ExitUnsupported
	}
	return ExitUsage
}

// Run connects, reports a subscription where the session opens one, lists
// the tools, calls each with {} and closes, printing a contract line for
// every step. List and every call get the call timeout as their context's
// deadline, when one is given; the handshake and the subscription get none
// (neither Go library has a start-up timeout of its own, and a
// subscription lasts until Close).
func Run(env Env, p Plan, out *Printer) {
	if len(p.Config) > 0 || len(p.Eras) > 0 {
		config := map[string]any{}
		for k, v := range p.Config {
			config[k] = v
		}
		if len(p.Eras) > 0 {
			config["eras"] = p.Eras
		}
		out.Line(map[string]any{"config": config})
	}
	start := time.Now()
	s, err := p.Connect(context.Background())
	connect := phase(start, err)
	if es, ok := s.(EraSession); ok && err == nil {
		if era := es.Era(); era != "" {
			connect["era"] = era
		}
	}
	out.Line(map[string]any{"connect": connect})
	if err != nil {
		return
	}
	if ls, ok := s.(ListenSession); ok {
		start = time.Now()
		if opened, err := ls.Listen(context.Background()); opened {
			out.Line(map[string]any{"listen": phase(start, err)})
		}
	}
	start = time.Now()
	var tools []string
	err = withTimeout(env.CallTimeout, func(ctx context.Context) error {
		var err error
		tools, err = s.ListTools(ctx)
		return err
	})
	out.Line(map[string]any{"list": phase(start, err)})
	if err == nil {
		callAll(env, s, tools, out)
	}
	start = time.Now()
	err = s.Close()
	out.Line(map[string]any{"close": phase(start, err)})
}

func callAll(env Env, s Session, tools []string, out *Printer) {
	var wg sync.WaitGroup
	for _, name := range tools {
		call := func() {
			start := time.Now()
			err := withTimeout(env.CallTimeout, func(ctx context.Context) error { return s.CallTool(ctx, name) })
			line := phase(start, err)
			line["tool"] = name
			out.Line(line)
		}
		if env.Parallel {
			wg.Go(call)
		} else {
			call()
		}
	}
	wg.Wait()
}

func withTimeout(d time.Duration, f func(context.Context) error) error {
	ctx := context.Background()
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	return f(ctx)
}

func phase(start time.Time, err error) map[string]any {
	p := map[string]any{"outcome": "ok", "elapsed_ms": time.Since(start).Milliseconds()}
	if err != nil {
		p["outcome"], p["error"] = "error", err.Error()
	}
	return p
}

// Printer writes contract lines whole, one at a time.
type Printer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewPrinter returns a Printer writing to w.
func NewPrinter(w io.Writer) *Printer { return &Printer{w: w} }

// Line writes v as one JSON line.
func (p *Printer) Line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.w.Write(append(b, '\n'))
}

// RefuseLimits returns an ErrUnsupported error naming the first override
// in limits that honour does not take; honour applies the ones it can and
// reports whether it took the key.
func RefuseLimits(limits map[string]int64, honour func(key string, v int64) bool) error {
	for k, v := range limits {
		if !honour(k, v) {
			return Unsupported("%s override %s=%d (the library has no such setting)", EnvLimits, k, v)
		}
	}
	return nil
}
