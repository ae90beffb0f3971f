// Package client holds the client checks of either transport: each runs
// the client's adapter against the fakes of both, judges it over stdio and
// over streamable HTTP apart (run.C.JudgeOn) and ends with the worse
// verdict (run.C.Conclude). They enforce the rules of how a client meets
// the eras (LC-43 … LC-46, HT-92) and those of the 2026-07-28 era that bind
// it whatever its transport.
//
// Specs live in ordinary files so the CLI can import them; suite_test.go
// runs them against the reference client under `go test`.
package client

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A check file registers each check with clientCheck or eraChoiceCheck,
// then its body:
//
//	var _ = clientCheck(check.Descriptor{ID: "client.…", Title: …, Requirement: …,
//		Rules: []string{"JR-…"}, Eras: check.ModernEra, KilledBy: []mutant.Name{mutant.…}}, func(c *run.C) {
//		eachTransport(c, func(t check.Transport) { x := runOver(c, t, fake{…}, target.Invocation{…}); … })
//	})
//
// clientCheck's body runs once per era of its descriptor that the client
// claims (the fakes serve it, the adapter is told it); eraChoiceCheck's
// runs once and names the era of each adapter run itself (the client's own
// choice when it names none).
var (
	clientCheck    = run.For(check.Client, check.Any)
	eraChoiceCheck = run.ForEraChoice(check.Any)
)
