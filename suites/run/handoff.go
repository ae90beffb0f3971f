package run

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/target"
)

// Handoff is what a run's pre-flight learnt of its targets: each server
// transport's eras (with the start-up it measured) and each client
// transport's probe run. The coordinator of a parallel run probes once
// and gives its Handoff to every worker (GiveHandoff), so that no worker
// starts a target before its first check only to learn it again.
type Handoff struct {
	Eras       map[check.Transport]ServerEras `json:"eras,omitempty"`
	Clients    map[string]ClientProbe         `json:"clients,omitempty"`
	ClientInfo string                         `json:"client_info,omitempty"`
	// Discovery is the fixtures discovery's, when the pre-flight ran it.
	Discovery *Discovery `json:"discovery,omitempty"`
}

// ClientProbe is one transport's pre-flight run of the client adapter.
type ClientProbe struct {
	Run    *target.Run `json:"run"`
	Called bool        `json:"called"` // the fake received tools/call
}

// TakeHandoff returns what this process's pre-flight probed; call it after
// the pre-flight. Probes that failed are left out (they stopped the run).
func TakeHandoff() Handoff {
	h := Handoff{Eras: ProbedEras(), Clients: map[string]ClientProbe{}, ClientInfo: ClientInfo(), Discovery: takenDiscovery()}
	probesMu.Lock()
	defer probesMu.Unlock()
	for t, p := range probes {
		if p.done.Load() && p.err == nil && p.run != nil {
			h.Clients[t] = ClientProbe{Run: p.run, Called: p.called}
		}
	}
	return h
}

// GiveHandoff makes h this process's probes, as if its pre-flight had run
// them; call it after Configure, before the pre-flight.
func GiveHandoff(h Handoff) {
	eraMu.Lock()
	if eraSeen == nil {
		eraSeen = map[check.Transport]*eraProbe{}
	}
	for t, e := range h.Eras {
		p := &eraProbe{eras: e}
		p.once.Do(func() {})
		eraSeen[t] = p
	}
	eraMu.Unlock()
	probesMu.Lock()
	for t, c := range h.Clients {
		p := &transportProbe{run: c.Run, called: c.Called}
		p.once.Do(func() {})
		p.done.Store(true)
		probes[t] = p
	}
	probesMu.Unlock()
	clientInfoMu.Lock()
	clientInfo = h.ClientInfo
	clientInfoMu.Unlock()
	if h.Discovery != nil {
		givenDiscovery(h.Discovery)
	}
}
