package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Era is a protocol era of the client: the initialize handshake of
// 2025-03-26 … 2025-11-25, or 2026-07-28 (server/discover, _meta on every
// request, no session).
type Era string

// The eras; EraAuto (Options.Era's zero value) probes and falls back.
const (
	EraAuto   Era = ""
	EraLegacy Era = "legacy"
	EraModern Era = "modern"
)

// The 2026-07-28 errors a server answers a well-formed probe with only when
// it speaks that era (LC-42, HT-74, JR-49): the client stays modern on them.
var modernErrorCodes = []int64{jsonrpc.CodeUnsupportedProtocolVersion, codeHeaderMismatch, codeMissingCapability}

// The 2026-07-28 error codes of the HTTP headers (HT-74) and of a missing
// client capability (JR-49).
const (
	codeHeaderMismatch    = -32020
	codeMissingCapability = -32021
)

// probe is what the server/discover probe found.
type probe struct {
	err error
	// modern: the server answered as a 2026-07-28 server does, with a
	// DiscoverResult or a 2026-07-28 error; the client does not fall back.
	modern bool
	// fatal: the startup deadline passed or the caller gave up; nothing
	// else can be tried.
	fatal bool
	// methodNotFound: the answer was -32601.
	methodNotFound bool
}

// connect opens the session in the era Options.Era names. EraLegacy runs
// the initialize handshake. EraModern and EraAuto send server/discover with
// the client's _meta; a DiscoverResult naming a version the client speaks
// makes the session modern. Under EraAuto every other answer (an error that
// is not a 2026-07-28 one, whatever its code; a result that is no
// DiscoverResult; an HTTP error without a JSON-RPC body; silence for
// ProbeTimeout) means a legacy server, and the client falls back to
// initialize (LC-45, LC-46, HT-92). A -32022 naming a 2026-07-28 version the
// client speaks is retried with it (LC-43).
func (s *Session) connect(ctx context.Context) error {
	if s.opts.Era == EraLegacy {
		return s.handshake(ctx)
	}
	p := s.discover(ctx)
	switch {
	case s.opts.Mutant == mutant.DiscoverFallback && !p.fatal:
		// The permitted variant speaks the legacy era only: it probes,
		// then opens with initialize whatever the answer.
		return s.handshake(ctx)
	case p.err == nil:
		s.era = EraModern
		return nil
	case p.fatal || p.modern:
		return p.err
	case s.opts.Era == EraModern:
		return failure.Wrap(failure.ErrProtocol, mcp.MethodDiscover, fmt.Errorf(
			"the server does not offer %s (%w); this client was told to speak it only (MCPCONFORM_ERA=modern): unset the era to let it fall back to initialize",
			mcp.ModernVersion, p.err))
	case s.opts.Mutant == mutant.DiscoverNoFallback:
		return p.err
	case s.opts.Mutant == mutant.NoEraFallback && !p.methodNotFound:
		return p.err
	}
	return s.handshake(ctx)
}

// maxDiscoverAttempts bounds the server/discover requests of one probe: the
// first, and one retry with the version a -32022 names (LC-43).
const maxDiscoverAttempts = 2

// discover sends server/discover, once more with the 2026-07-28 version the
// server names in a -32022 (LC-43), and reads the answer.
func (s *Session) discover(ctx context.Context) probe {
	version := mcp.ModernVersion
	for attempt := 1; ; attempt++ {
		m, p := s.probeRequest(ctx, version)
		if m == nil {
			return p
		}
		if m.Error == nil {
			return s.discoverResult(m.Result)
		}
		next, p := s.discoverError(m.Error)
		if next == "" {
			return p
		}
		if attempt >= maxDiscoverAttempts {
			p.err = failure.Wrap(failure.ErrProtocol, mcp.MethodDiscover, fmt.Errorf(
				"the server refused version %s again although it names it as supported (%w)", version, m.Error))
			return p
		}
		version = next
	}
}

// probeRequest sends server/discover naming version and waits for the
// answer: under EraAuto for ProbeTimeout at most. Without an answer it
// returns the probe's outcome and no message.
func (s *Session) probeRequest(ctx context.Context, version string) (*jsonrpc.Message, probe) {
	params := map[string]any{"_meta": s.meta(version)}
	wait := ctx
	if s.opts.Era == EraAuto {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, s.opts.ProbeTimeout)
		defer cancel()
	}
	p, err := s.start(mcp.MethodDiscover, params, nil)
	if err != nil {
		return nil, probe{err: err, fatal: true}
	}
	m, err := s.wait(wait, p)
	switch {
	case ctx.Err() != nil:
		return nil, probe{err: s.startupAbandoned(ctx, mcp.MethodDiscover, 0), fatal: true}
	case errors.Is(err, context.DeadlineExceeded):
		return nil, probe{err: failure.New(failure.ErrTimeout, mcp.MethodDiscover, fmt.Sprintf(
			"no answer to server/discover within the probe timeout of %v (LC-45)", s.opts.ProbeTimeout))}
	case err != nil:
		// The exchange failed without a JSON-RPC answer (an HTTP error with
		// no JSON-RPC body, HT-92): not a 2026-07-28 server.
		return nil, probe{err: err}
	}
	return m, probe{}
}

// discoverError reads an error answer to the probe: the next version to try
// after a -32022 that names one (LC-43), else the probe's outcome.
func (s *Session) discoverError(e *jsonrpc.Error) (string, probe) {
	p := probe{err: failure.Wrap(failure.ErrProtocol, mcp.MethodDiscover, e), methodNotFound: e.Code == jsonrpc.CodeMethodNotFound}
	if !slices.Contains(modernErrorCodes, e.Code) {
		return "", p
	}
	p.modern = true
	if e.Code != jsonrpc.CodeUnsupportedProtocolVersion {
		return "", p
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(e.Data, &data) // no list: no version to retry with
	for _, v := range mcp.ModernProtocolVersions {
		if slices.Contains(data.Supported, v) {
			return v, p
		}
	}
	if slices.ContainsFunc(data.Supported, func(v string) bool { return slices.Contains(s.opts.ProtocolVersions, v) }) {
		p.modern = false // it names legacy versions only: initialize
		return "", p
	}
	p.err = failure.New(failure.ErrProtocol, mcp.MethodDiscover, fmt.Sprintf(
		"the server supports %s and none of them is a version this client speaks (%s, %s) (LC-43)",
		strings.Join(data.Supported, ", "), strings.Join(mcp.ModernProtocolVersions, ", "), strings.Join(s.opts.ProtocolVersions, ", ")))
	return "", p
}

// discoverResult reads a result to the probe: a DiscoverResult naming a
// 2026-07-28 version the client speaks opens the modern session.
func (s *Session) discoverResult(raw json.RawMessage) probe {
	var res struct {
		ResultType        *string         `json:"resultType"`
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return probe{err: failure.New(failure.ErrProtocol, mcp.MethodDiscover, "the server/discover result is not an object")}
	}
	if res.ResultType != nil && *res.ResultType != resultComplete {
		return probe{err: failure.New(failure.ErrProtocol, mcp.MethodDiscover, fmt.Sprintf(
			"the server/discover result has resultType %q; a DiscoverResult is complete (JR-16)", *res.ResultType))}
	}
	for _, v := range mcp.ModernProtocolVersions {
		if slices.Contains(res.SupportedVersions, v) {
			s.version, s.initResult, s.serverCaps = v, raw, res.Capabilities
			return probe{}
		}
	}
	return probe{err: failure.New(failure.ErrProtocol, mcp.MethodDiscover, fmt.Sprintf(
		"the server/discover result names supportedVersions %q, none of them %s: it is no 2026-07-28 DiscoverResult",
		res.SupportedVersions, strings.Join(mcp.ModernProtocolVersions, ", ")))}
}
