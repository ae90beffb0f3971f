package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/target"
)

// Transports of the adapter contract.
const (
	transportStdio = "stdio"
	transportHTTP  = "http"
)

// ContractWayOut is what an adapter that breaks the contract must do.
const ContractWayOut = `an adapter connects to the server it is given (MCPCONFORM_SERVER_COMMAND or MCPCONFORM_SERVER_URL), ` +
	`lists the tools, calls each and prints one {"tool":…,"outcome":"ok"|"error"} line per call and no other text on stdout, ` +
	`closes its client and exits 0 (docs/client.md, "Certify your client")`

// probeTools are the tools the well-behaved fakes offer.
var probeTools = []string{"echo"}

// transportProbe is one adapter run against the well-behaved fake of a
// transport, made once per run: the pre-flight judges it, and the checks
// read the client's config line from it.
type transportProbe struct {
	once   sync.Once
	done   atomic.Bool // the probe has run
	run    *target.Run
	called bool  // the fake received tools/call
	err    error // the harness could not run the adapter
}

var (
	probesMu sync.Mutex
	probes   = map[string]*transportProbe{}
)

func resetDeclared() {
	probesMu.Lock()
	defer probesMu.Unlock()
	probes = map[string]*transportProbe{}
}

func probeOf(transport string) *transportProbe {
	probesMu.Lock()
	defer probesMu.Unlock()
	p := probes[transport]
	if p == nil {
		p = &transportProbe{}
		probes[transport] = p
	}
	return p
}

// probe returns the transport's probe, running it on first use.
func (c *C) probe(transport string) *transportProbe {
	p := probeOf(transport)
	p.ensure(c.Ctx, c.cfg, transport)
	if p.err != nil {
		c.harnessError(p.err)
	}
	return p
}

// requireTransport ends the check UNIMPLEMENTED when the adapter exited 127
// for its transport in the probe.
func (c *C) requireTransport(transport string) {
	if p := c.probe(transport); p.run.ExitCode == target.ExitUnsupported {
		c.Unimplemented(fmt.Sprintf("the adapter exited %d for %s=%s: it does not support that transport", target.ExitUnsupported, target.EnvTransport, transport))
	}
}

// ensure runs the probe unless it has run.
func (p *transportProbe) ensure(ctx context.Context, cfg Options, transport string) {
	p.once.Do(func() {
		p.do(ctx, cfg, transport)
		p.done.Store(true)
	})
}

// knownConfigLine is the client's config line over transport when its probe
// has run (the pre-flight runs both before the specs are made), else the
// reference client's.
func knownConfigLine(transport string) target.Output {
	if p := probeOf(transport); p.done.Load() && p.err == nil && p.run != nil {
		return p.run.Output
	}
	return ReferenceConfigLine()
}

func (p *transportProbe) do(ctx context.Context, cfg Options, transport string) {
	inv := target.Invocation{Case: "mcpconform.config-probe", Transport: transport, CallTimeout: cfg.Patience, Deadline: cfg.CheckDeadline}
	adapter := target.Adapter{Command: cfg.ClientAdapter}
	if transport == transportHTTP {
		f, err := httpfake.Start(httpfake.Options{Case: "well-behaved", ToolAlias: cfg.ToolAlias})
		if err != nil {
			p.err = err
			return
		}
		defer f.Close()
		inv.ServerURL = f.URL()
		if p.run, p.err = adapter.Run(ctx, inv); p.err == nil {
			p.called = slices.ContainsFunc(f.Requests(), func(q httpfake.Request) bool {
				return slices.ContainsFunc(q.Messages, func(m *jsonrpc.Message) bool { return m.Method == "tools/call" })
			})
			for _, q := range f.Requests() {
				for _, m := range q.Messages {
					if m.Method == "initialize" {
						noteClientInfo(m)
					}
				}
			}
		}
		return
	}
	dir, err := os.MkdirTemp("", "mcpconform-probe-")
	if err != nil {
		p.err = err
		return
	}
	defer os.RemoveAll(dir)
	fake := stdiofake.Options{Case: "well-behaved", Record: filepath.Join(dir, "record.jsonl")}
	inv.ServerCommand = FakeCommand(fake)
	if p.run, p.err = adapter.Run(ctx, inv); p.err != nil {
		return
	}
	rec, err := stdiofake.ReadRecord(fake.Record)
	if err != nil {
		p.err = err
		return
	}
	reapSurvivors(rec)
	p.called = len(rec.Requests("tools/call")) > 0
	for _, m := range rec.Requests("initialize") {
		noteClientInfo(m)
	}
}

var (
	clientInfoMu sync.Mutex
	clientInfo   string
)

// noteClientInfo keeps the clientInfo of the first initialize a client
// sent in a pre-flight.
func noteClientInfo(m *jsonrpc.Message) {
	info := ImplementationInfo(m.Params, "clientInfo")
	clientInfoMu.Lock()
	defer clientInfoMu.Unlock()
	if clientInfo == "" {
		clientInfo = info
	}
}

// ClientInfo is the clientInfo the client under test reported in its
// pre-flight: "name version", or "".
func ClientInfo() string {
	clientInfoMu.Lock()
	defer clientInfoMu.Unlock()
	return clientInfo
}

// ImplementationInfo is the "name version" of the implementation object
// (serverInfo, clientInfo) under field of raw, or "".
func ImplementationInfo(raw json.RawMessage, field string) string {
	var members map[string]json.RawMessage
	var info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if json.Unmarshal(raw, &members) != nil || json.Unmarshal(members[field], &info) != nil {
		return ""
	}
	return strings.TrimSpace(info.Name + " " + info.Version)
}

// breach says how the probe's run breaks the adapter contract, or "". A
// run that reports a failed connect or list step keeps the contract: the
// client failed, and the checks judge that.
func (p *transportProbe) breach(cfg Options) string {
	r := p.run
	if r.Killed {
		return fmt.Sprintf("was still running after %s (--timeout) and was killed; it must close its client and exit", cfg.CheckDeadline)
	}
	if b := r.Breach(); b != "" {
		return b
	}
	if len(r.Calls) == 0 {
		if _, failed := r.Failed(); failed != nil {
			return ""
		}
		return fmt.Sprintf("exited %d without printing a tool line (the server offers %s)", r.ExitCode, strings.Join(probeTools, ", "))
	}
	offered := probeTools
	if cfg.ToolAlias != "" {
		offered = []string{cfg.ToolAlias}
	}
	for _, call := range r.Calls {
		if !slices.Contains(offered, call.Tool) {
			return fmt.Sprintf("printed a tool line for %q, which the server does not offer (it offers %s)", call.Tool, strings.Join(offered, ", "))
		}
	}
	if !p.called {
		return "printed tool lines, but the server it was given never received tools/call"
	}
	return ""
}

// PreflightClient runs the client adapter once per transport against the
// well-behaved fakes, before any check, and returns the one error that
// stops a run whose adapter breaks the contract: it supports neither
// transport, or its output over one of them has lines that are not
// contract lines, no tool line, or no end. A transport the adapter lacks
// (exit 127) leaves its checks UNIMPLEMENTED. The checks reuse the probes.
func PreflightClient(ctx context.Context) error {
	cfg := Current()
	var unsupported, breaches []string
	for _, t := range []string{transportStdio, transportHTTP} {
		p := probeOf(t)
		p.ensure(ctx, cfg, t)
		if p.err != nil {
			return p.err
		}
		if p.run.ExitCode == target.ExitUnsupported {
			unsupported = append(unsupported, t)
			continue
		}
		if b := p.breach(cfg); b != "" {
			breaches = append(breaches, fmt.Sprintf("over %s, against a well-behaved server, it %s", t, b))
		}
	}
	if len(breaches) > 0 {
		return fmt.Errorf("client adapter %s breaks the adapter contract: %s; %s", strings.Join(cfg.ClientAdapter, " "), strings.Join(breaches, "; "), ContractWayOut)
	}
	if len(unsupported) == 2 {
		return errors.New("client adapter " + strings.Join(cfg.ClientAdapter, " ") + " supports neither transport: it exited 127 for " +
			target.EnvTransport + "=stdio and =http; an adapter exits 127 only for a transport its client lacks (docs/client.md, \"Certify your client\")")
	}
	return nil
}
