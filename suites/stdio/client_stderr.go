package stdio

import (
	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The server's stderr: NG-05, NG-06, ST-06 … ST-08.

// floodBytes is the size of the stderr floods: far past any pipe buffer
// (64 KiB) and any stderr tail a client keeps, and small enough to cross a
// pipe within a client's start-up timeout on a loaded machine (64 MiB took
// the reference past its 1.5 s under CI load, a WARN of the load's).
const floodBytes = 8 << 20

func floodCheck(id, when, title string, eras []check.Era) bool {
	return clientCheck(check.Descriptor{
		ID:          id,
		Title:       title,
		Requirement: "stderr is drained from spawn to exit, concurrently with stdout, so a flood never blocks the server, and stderr volume never ends the session.",
		Rules:       []string{"NG-05", "ST-06", "ST-08"},
		Eras:        eras,
		KilledBy:    []mutant.Name{mutant.NoStderrDrain, mutant.StderrVolumeFatal, mutant.StderrInherited},
	}, func(c *run.C) {
		secret := newMarker("secret")
		r := c.RunStdioClient(stdiofake.Options{Case: "stderr-flood", Bytes: floodBytes, When: when, Marker: secret}, target.Invocation{})
		wantAllCallsOK(c, r, 1)
		wantNotLeaked(c, r, secret, "the stderr secret")
	})
}

// The flood before the handshake's reply is judged in both eras (the
// handshake differs), the one during a call in the legacy era only (the
// same drain).
var _ = floodCheck("stdio.client.stderr.flood-before-initialize", "before",
	"8 MiB of stderr before the initialize reply neither blocks nor ends the session", check.BothEras)

var _ = floodCheck("stdio.client.stderr.flood-during-call", "during",
	"8 MiB of stderr while a call is pending neither blocks nor ends the session", nil)

var _ = clientCheck(check.Descriptor{
	ID:          "stdio.client.stderr.not-leaked",
	Title:       "a secret the server writes to stderr appears in no error and no output of the client",
	Requirement: "Captured stderr bytes never appear in error messages, exceptions or the host's stderr.",
	Rules:       []string{"NG-06"},
	KilledBy:    []mutant.Name{mutant.LeakStderr, mutant.StderrInherited},
}, func(c *run.C) {
	secret := newMarker("secret")
	r := c.RunStdioClient(stdiofake.Options{Case: "stderr-secret-exit", Marker: secret}, target.Invocation{})
	c.Require(len(r.Calls) == 1 && !r.Calls[0].OK(), "the call fails: the server exited without answering",
		"calls: %s", describeCalls(r.Calls))
	wantNotLeaked(c, r, secret, "the stderr secret")
})
