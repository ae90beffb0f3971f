package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Which era a server serves, told as a dual-era client tells it (LC-45):
// server/discover answered with a result or a 2026-07-28 error means the
// modern era, unless the versions it names are all legacy ones. Only an initialize refused as a modern-only server refuses it
// (-32022, or an error whose data.supported names no legacy version, LC-48)
// means the server does not serve the legacy one: a server whose handshake
// fails otherwise, or cannot be read, is judged legacy, so that the legacy
// checks report what is broken. Each probe has a fresh connection, so
// neither can spoil the other.

func init() { run.SetEraProber(probeEras) }

func probeEras(cfg run.Options, t check.Transport) run.ServerEras {
	var e run.ServerEras
	discover := probeOnce(cfg, t, mcp.MethodDiscover, modernParams(mcp.ModernVersion, nil), mcp.ModernVersion)
	switch m := discover.reply; {
	case m == nil:
		e.Evidence = discover.what
	case m.Error == nil:
		versions, named := supportedVersions(m.Result, "supportedVersions")
		if e.Modern = !named || servesModern(versions); e.Modern {
			e.Evidence = "answered server/discover with a result"
		} else {
			e.Evidence = fmt.Sprintf("answered server/discover naming only legacy versions %v", versions)
		}
	case isModernError(m.Error.Code):
		versions, named := supportedVersions(m.Error.Data, "supported")
		if e.Modern = !named || servesModern(versions); e.Modern {
			e.Evidence = fmt.Sprintf("answered server/discover with 2026-07-28 error %d%s", m.Error.Code, discover.over)
		} else {
			e.Evidence = fmt.Sprintf("answered server/discover with error %d naming only legacy versions %v%s", m.Error.Code, versions, discover.over)
		}
	default:
		e.Evidence = fmt.Sprintf("answered server/discover with error %d (%s)%s", m.Error.Code, clip(m.Error.Message), discover.over)
	}
	init := probeOnce(cfg, t, "initialize", initializeParams(v1125, nil), "")
	e.Startup = max(discover.took, init.took)
	switch m := init.reply; {
	case m == nil:
		e.Legacy = true
		e.Evidence += ", and " + init.what
	case m.Error == nil:
		e.Legacy = true
		e.Evidence += ", and answered initialize with a result"
		e.Info = run.ImplementationInfo(m.Result, "serverInfo")
		e.Sessionless = t == check.HTTP && init.sessionless
	case refusesLegacy(m.Error):
		e.Evidence += fmt.Sprintf(", and refused initialize with error %d, naming no legacy version%s", m.Error.Code, init.over)
	default:
		e.Legacy = true
		e.Evidence += fmt.Sprintf(", and failed initialize with error %d (%s)%s", m.Error.Code, clip(m.Error.Message), init.over)
	}
	if discover.reply == nil && init.reply == nil && !discover.spoke && !init.spoke {
		e.NotAServer = notAServer(cfg, t, discover, init)
	}
	return e
}

// notAServer is the one message of a run that stops before its checks: the
// target answered neither probe, and showed nothing of an MCP server.
func notAServer(cfg run.Options, t check.Transport, discover, init answer) string {
	if t == check.HTTP {
		return fmt.Sprintf("nothing answers at %s (%s); is the server running and listening there? start it, or fix the host, port or path of --url",
			transcript.RedactURL(cfg.ServerURL), init.both)
	}
	what := discover.what + ", and " + init.what
	if discover.kind == init.kind {
		what = init.both
	}
	return fmt.Sprintf("the stdio server %q %s (each asked in a process of its own and given %s, %s in all: --probe-timeout); "+
		"is it an MCP server speaking stdio? try running it by hand with a JSON-RPC initialize line: %s; "+
		"if it is one that starts slowly (npx fetching a package, a busy machine), give it a longer --probe-timeout",
		strings.Join(cfg.ServerCommand, " "), what, cfg.ProbeTimeout, 2*cfg.ProbeTimeout, initializeLine)
}

// initializeLine is what a user can paste into a stdio server by hand.
const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"me","version":"1"}}}`

// supportedVersions reads the list of versions under field of a result or
// error data; named is false when there is none to read, which leaves the
// judging to the checks.
func supportedVersions(raw json.RawMessage, field string) (versions []string, named bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || json.Unmarshal(fields[field], &versions) != nil || len(versions) == 0 {
		return nil, false
	}
	return versions, true
}

// servesModern reports whether versions name one newer than the legacy
// era's: a server that answers server/discover naming only legacy versions
// does so for dual-era clients' probes, and serves no 2026-07-28 request.
func servesModern(versions []string) bool {
	return slices.ContainsFunc(versions, func(v string) bool { return v > legacyVersions[len(legacyVersions)-1] })
}

// isModernError reports whether code is one only a 2026-07-28 server sends
// (JR-29).
func isModernError(code int64) bool {
	return code == jsonrpc.CodeHeaderMismatch || code == jsonrpc.CodeMissingClientCapability || code == jsonrpc.CodeUnsupportedProtocolVersion
}

// refusesLegacy reports whether an error answering initialize says the
// server serves no legacy version: -32022, or data.supported without one.
func refusesLegacy(e *jsonrpc.Error) bool {
	var data struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(e.Data, &data) == nil && len(data.Supported) > 0 {
		return !slices.ContainsFunc(data.Supported, func(v string) bool { return slices.Contains(legacyVersions, v) })
	}
	return e.Code == jsonrpc.CodeUnsupportedProtocolVersion
}

// clip shortens what a server wrote for a message that repeats it, saying
// how much it cut.
func clip(s string) string { return transcript.Clip(s, transcript.ExcerptBytes) }

// answer is what one era probe saw.
type answer struct {
	// reply is the response to the probe's request; over HTTP also an
	// error without id answering its lone request. nil when none came.
	reply *jsonrpc.Message
	// over says how the reply came over HTTP (", in HTTP 400 …"), for the
	// evidence; "" over stdio.
	over string
	// what says, without a reply, what was observed instead: "exited (exit
	// status 3) …", "did not answer initialize within 5s"; kind names it
	// (silent, exited, noise, echo, refused) and both says it of both
	// probes ("answered neither server/discover nor initialize within 5s").
	what, kind, both string
	// spoke: the server sent a JSON-RPC message or an HTTP reply: it is
	// there, if broken.
	spoke bool
	// sessionless: over HTTP, the reply carried no Mcp-Session-Id.
	sessionless bool
	// took is how long the reply took from the server's launch (over
	// HTTP, from the POST); zero without a reply.
	took time.Duration
}

// probeOnce sends one request on a fresh connection (over HTTP with
// MCP-Protocol-Version set to version, unless empty) and returns what came
// of it within the run's ProbeTimeout. It ends at once when the server
// answers (any HTTP reply, a JSON-RPC response), exits, writes a line that
// is not JSON-RPC, or sends the request back.
func probeOnce(cfg run.Options, t check.Transport, method string, params any, version string) answer {
	start := time.Now()
	a := probeConn(cfg, t, method, params, version)
	if a.reply != nil {
		a.took = time.Since(start)
	}
	return a
}

// probeConn is probeOnce's exchange.
func probeConn(cfg run.Options, t check.Transport, method string, params any, version string) answer {
	d := cfg.ProbeTimeout
	cn, err := dial(cfg, t, nil)
	if err != nil {
		return answer{what: fmt.Sprintf("could not be started to be asked %s (%v)", method, err), kind: "refused",
			both: fmt.Sprintf("could not be started (%v)", err)}
	}
	defer cn.close()
	h, overHTTP := cn.(*httpConn)
	if overHTTP {
		h.version, h.modern = version, method == mcp.MethodDiscover
		h.client.Timeout = d
	}
	id := jsonrpc.IntID(1)
	raw, err := jsonrpc.EncodeCall(id, method, params)
	if err != nil {
		return answer{what: fmt.Sprintf("was not asked %s (%v)", method, err), kind: "harness"}
	}
	if err := cn.send(raw); err != nil {
		if overHTTP {
			return answer{what: fmt.Sprintf("gave no HTTP answer to %s (%v)", method, err), kind: "refused", both: err.Error()}
		}
		if exit := cn.silence(true); exit != "" {
			return exited(method, exit)
		}
		return answer{what: fmt.Sprintf("could not be sent %s (%v)", method, err), kind: "refused", both: fmt.Sprintf("took no input (%v)", err)}
	}
	p := &peer{conn: cn, transport: string(t)}
	if overHTTP {
		a := httpAnswer(p, h, id, method, d)
		a.sessionless = h.session == ""
		return a
	}
	return stdioAnswer(p, cn.(stdioConn), id, method, d)
}

// httpAnswer judges the reply to the probe's POST at once: a complete one
// (a JSON body, or none, whatever its HTTP status), or a stream read until
// the answer, its end or the run's ProbeTimeout. An error without id (null)
// answers the probe's lone request: it is how a server refuses a POST it
// cannot read as a request of its session (HTTP 400 "Server not
// initialized").
func httpAnswer(p *peer, h *httpConn, id jsonrpc.ID, method string, d time.Duration) answer {
	a := answer{spoke: true, over: ", in HTTP " + h.lastHead}
	answers := func(m *jsonrpc.Message) bool {
		return responseTo(id)(m) || m.Kind() == jsonrpc.KindError && m.ID.IsZero()
	}
	if h.settled() {
		if a.reply = p.waitReady(responseTo(id)); a.reply == nil {
			a.reply = p.waitReady(answers)
		}
	} else {
		a.reply = p.waitUntil(answers, d, h.streamEnd)
	}
	if a.reply == nil {
		a.what = fmt.Sprintf("answered %s with HTTP %s and no JSON-RPC response", method, h.last)
	}
	return a
}

// stdioAnswer waits up to d for the response to the probe's request; the
// end of the server's stdout (its exit) ends the wait at once. Lines that
// are not JSON-RPC do not: a server may print a banner first.
func stdioAnswer(p *peer, cn stdioConn, id jsonrpc.ID, method string, d time.Duration) answer {
	deadline := time.Now().Add(d)
	spoke := false
	for time.Now().Before(deadline) {
		m := p.wait(func(*jsonrpc.Message) bool { return true }, time.Until(deadline))
		switch {
		case m != nil && responseTo(id)(m):
			return answer{reply: m, spoke: true}
		case m != nil && m.Method == method && m.ID.Key() == id.Key():
			return answer{what: fmt.Sprintf("sent the %s request back instead of answering it", method), kind: "echo",
				both: "sent back the requests it was sent (server/discover, initialize) instead of answering them"}
		case m != nil:
			spoke = true
		case p.ended:
			if exit := cn.silence(true); exit != "" {
				return exited(method, exit)
			}
			return answer{what: fmt.Sprintf("closed its stdout without answering %s", method), kind: "closed",
				both: "closed its stdout without answering server/discover or initialize"}
		}
	}
	// A banner before the answer is the stdout check's to judge (ST-03):
	// only a target that wrote nothing but such lines is no server.
	if bad := cn.s.NonMessages(); len(bad) > 0 && !spoke {
		return answer{what: fmt.Sprintf("wrote %s to stdout and did not answer %s within %s", bad[0], method, d), kind: "noise",
			both: fmt.Sprintf("wrote %s to stdout and answered neither server/discover nor initialize", bad[0])}
	}
	if spoke {
		return answer{what: fmt.Sprintf("did not answer %s within %s", method, d), spoke: true}
	}
	return answer{what: fmt.Sprintf("wrote nothing and did not answer %s within %s", method, d), kind: "silent",
		both: "wrote nothing and answered neither server/discover nor initialize"}
}

// exited is the answer of a server that ended before it answered.
func exited(method, exit string) answer {
	exit = strings.TrimPrefix(exit, "the server ")
	return answer{what: fmt.Sprintf("%s, without answering %s", exit, method), kind: "exited",
		both: exit + ", without answering server/discover or initialize"}
}

// modernParams are params of a 2026-07-28 request naming version, with
// the fields of extra.
func modernParams(version string, extra map[string]any) map[string]any {
	params := map[string]any{}
	for k, v := range extra {
		params[k] = v
	}
	params["_meta"] = map[string]any{
		mcp.MetaProtocolVersion:    version,
		mcp.MetaClientCapabilities: map[string]any{},
		mcp.MetaClientInfo:         clientInfo,
	}
	return params
}

// clientInfo is how the checks name themselves.
var clientInfo = map[string]any{"name": "mcpconform", "version": "1"}

// initializeParams are initialize's params proposing version with the
// client capabilities caps.
func initializeParams(version string, caps map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{}
	}
	return map[string]any{"protocolVersion": version, "capabilities": caps, "clientInfo": clientInfo}
}
