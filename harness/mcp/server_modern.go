package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// discoverTTL is how long a client may cache the discover result: the
// server's versions and capabilities never change while it runs.
const discoverTTL = 5 * time.Minute

// modernRequest answers req when it belongs to the 2026-07-28 era, or when
// the server serves that era only; it reports false for a legacy request,
// which the initialize handshake governs. A modern request is stateless
// (JR-51): its version, capabilities and log level come from its own _meta
// (JR-46), never from earlier requests.
//
// Not yet served in the modern era: input-required results (sampling,
// elicitation and roots ride in them; the tools that need them answer with
// isError, since a modern server never sends requests, JR-17), cancellation
// of a modern request, subscriptions/listen.
func (s *Server) modernRequest(ctx context.Context, req *jsonrpc.Message, out func(*jsonrpc.Message) error) (*jsonrpc.Message, bool) {
	if s.opts.Era == EraLegacy {
		return nil, false
	}
	meta, modern := ModernRequest(req)
	if !modern && s.opts.Era != EraModern {
		return nil, false
	}
	if !modern && req.Method == "initialize" {
		// A modern-only server names its versions in the error (LC-48).
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = decodeParams(req.Params, &p)
		return s.respond(req, nil, UnsupportedVersion(p.ProtocolVersion, ModernProtocolVersions)), true
	}
	if rpcErr := meta.Problem(); rpcErr != nil && !(s.opts.Mutant == mutant.MissingMetaAccepted && meta.HasVersion) {
		return s.respond(req, nil, rpcErr), true
	}
	if !slices.Contains(ModernProtocolVersions, meta.Version) {
		if s.opts.Mutant == mutant.UnsupportedVersionInvalidParams {
			return s.respond(req, nil, invalidParams(fmt.Sprintf("unsupported protocol version %q", meta.Version))), true
		}
		return s.respond(req, nil, UnsupportedVersion(meta.Version, ModernProtocolVersions)), true
	}
	handle, ok := s.modernMethod(req.Method)
	if !ok {
		return s.respond(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("method %q is not offered by this server in protocol version %s", req.Method, meta.Version)}), true
	}
	sess := s.statelessSession(meta)
	rc, rpcErr := sess.begin(ctx, s, req, out)
	if rpcErr != nil {
		return s.respond(req, nil, rpcErr), true
	}
	result, rpcErr := handle(rc, req.Params)
	sess.finish(rc)
	if rpcErr != nil {
		return s.respond(req, nil, rpcErr), true
	}
	return s.respond(req, s.modernResult(result), nil), true
}

// modernMethod finds the handler of a modern request method: the legacy
// ones but the handshake, ping, logging/setLevel and resources/subscribe and
// unsubscribe, which the modern era removed, plus server/discover.
func (s *Server) modernMethod(name string) (methodHandler, bool) {
	switch name {
	case MethodDiscover:
		return s.discover, true
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return nil, false
	}
	return s.method(name)
}

// statelessSession is the state of one modern request, made from its _meta.
// The log threshold is the requested logLevel; without one nothing is
// logged (LG-12). It declares no client capabilities: a modern server never
// sends requests (JR-17).
func (s *Server) statelessSession(meta ModernMeta) *serverSession {
	level := len(logLevels)
	if i := levelIndex(meta.LogLevel); i >= 0 {
		level = i
	}
	return &serverSession{
		srv:      s,
		stage:    ready,
		version:  meta.Version,
		level:    level,
		inflight: map[string]*RequestContext{},
		waiting:  map[string]chan *jsonrpc.Message{},
	}
}

// discover answers server/discover (LC-41): the versions served, the
// capabilities, instructions and the cache hints.
func (s *Server) discover(*RequestContext, json.RawMessage) (any, *jsonrpc.Error) {
	result := map[string]any{
		"supportedVersions": ModernProtocolVersions,
		"capabilities":      s.declaredCapabilities(true),
		"instructions":      instructions,
		"ttlMs":             discoverTTL.Milliseconds(),
		"cacheScope":        "public",
	}
	if s.opts.Mutant == mutant.DiscoverNoSupportedVersions {
		delete(result, "supportedVersions")
	}
	return result, nil
}

// modernResult stamps a result of the modern era: resultType "complete"
// (JR-15) and the server's identity in _meta (JR-48).
func (s *Server) modernResult(result any) any {
	raw, err := json.Marshal(result)
	if err != nil {
		return result
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return result
	}
	if _, ok := fields["resultType"]; !ok && s.opts.Mutant != mutant.ResultTypeMissing {
		fields["resultType"] = json.RawMessage(`"complete"`)
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(fields["_meta"], &meta)
	meta[MetaServerInfo], _ = json.Marshal(map[string]string{"name": ServerName, "version": ServerVersion})
	fields["_meta"], _ = json.Marshal(meta)
	return fields
}
