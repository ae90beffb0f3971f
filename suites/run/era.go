package run

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
)

// ServerEras is what the server under test serves over one transport: the
// legacy era (it does not refuse initialize) and the modern one (it answers
// server/discover with a result or a 2026-07-28 error).
type ServerEras struct {
	Legacy, Modern bool
	// Evidence says what the probe saw, for N/A messages and reports.
	Evidence string
	// NotAServer, when set, says why the target is no MCP server over the
	// transport at all (nothing listens at the URL; the command answered
	// neither probe and exited, stayed silent or wrote no JSON-RPC) and what
	// to try: the run stops before its checks with this one message.
	NotAServer string
	// Info is the serverInfo the server reported in its initialize
	// result: "name version" ("" when it reported none).
	Info string
	// Sessionless: over HTTP, initialize was answered without an
	// Mcp-Session-Id (a stateless server, HT-50): every client shares
	// what it keeps, so checks against it cannot run side by side.
	Sessionless bool
	// Startup is the slowest start the probe saw: from launching the
	// server (or sending the first POST) to its answer. Checks give a
	// server StartupBudget(Startup) to start.
	Startup time.Duration
}

// Applies reports whether a check of eras applies to the server: a
// modern-era check when it serves the modern era, a legacy-era check unless
// it serves the modern era only. A server that answered neither probe is
// judged as a legacy one, so that its broken handshake fails the checks.
func (e ServerEras) Applies(eras []check.Era) bool {
	for _, era := range eras {
		if era == check.Modern && e.Modern || era == check.Legacy && (e.Legacy || !e.Modern) {
			return true
		}
	}
	return false
}

// EraProber probes the server of the run's configuration over transport t
// (stdio or http). The server suite registers one (SetEraProber); without
// it every server is judged as a legacy one.
type EraProber func(cfg Options, t check.Transport) ServerEras

var (
	eraMu     sync.Mutex
	eraProber EraProber
	eraSeen   map[check.Transport]*eraProbe
)

type eraProbe struct {
	once sync.Once
	eras ServerEras
}

// SetEraProber installs the prober; call it from a suite's init.
func SetEraProber(p EraProber) {
	eraMu.Lock()
	defer eraMu.Unlock()
	eraProber = p
}

func resetEras() {
	eraMu.Lock()
	defer eraMu.Unlock()
	eraSeen = map[check.Transport]*eraProbe{}
}

// ServerEras returns what the server under test serves over transport t,
// probing it once per run.
func (c *C) ServerEras(t check.Transport) ServerEras { return probeEras(c.cfg, t) }

// ProbeServer returns what the server of the run's configuration serves
// over transport t, probing it unless a check or an earlier call did: how
// the CLI finds a target that is no MCP server before the checks run.
func ProbeServer(t check.Transport) ServerEras { return probeEras(Current(), t) }

func probeEras(cfg Options, t check.Transport) ServerEras {
	eraMu.Lock()
	prober := eraProber
	if eraSeen == nil {
		eraSeen = map[check.Transport]*eraProbe{}
	}
	p := eraSeen[t]
	if p == nil {
		p = &eraProbe{}
		eraSeen[t] = p
	}
	eraMu.Unlock()
	p.once.Do(func() {
		if prober == nil {
			p.eras = ServerEras{Legacy: true, Evidence: "was not probed for its era"}
			return
		}
		p.eras = prober(cfg, t)
	})
	return p.eras
}

// EraApplies reports whether the check applies to the server over
// transport t, and if not, why.
func (c *C) EraApplies(t check.Transport) (bool, string) {
	e := c.ServerEras(t)
	eras := c.D.EraList()
	if e.Applies(eras) {
		return true, ""
	}
	names := make([]string, len(eras))
	for i, era := range eras {
		names[i] = string(era)
	}
	return false, fmt.Sprintf("the check is of the %s era; over %s the server %s", strings.Join(names, " and "), t, e.Evidence)
}

// RequireEra ends the check N/A unless it applies over transport t.
func (c *C) RequireEra(t check.Transport) {
	if ok, why := c.EraApplies(t); !ok {
		c.NotApplicable(why)
	}
}

// StartupBudget is how long a check gives the server over transport t to
// start: Options.StartupBudget of the slowest start its probe saw.
func (c *C) StartupBudget(t check.Transport) time.Duration {
	return c.cfg.StartupBudget(c.ServerEras(t).Startup)
}

// ProbedEras returns what the run's era probes found, by transport; empty
// when no check asked.
func ProbedEras() map[check.Transport]ServerEras {
	eraMu.Lock()
	defer eraMu.Unlock()
	out := map[check.Transport]ServerEras{}
	for t, p := range eraSeen {
		p.once.Do(func() {}) // wait for a probe in progress
		out[t] = p.eras
	}
	return out
}

// Unreachable reports whether err is an HTTP client's failure to connect
// at all (nothing listens, the address is refused): the session could not
// be opened, which no rule of a check is about.
func Unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
