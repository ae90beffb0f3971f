// Package http holds the checks of the streamable HTTP transport.
// Client-role checks run the client's adapter against an HTTP fake of
// package httpfake and judge what it POSTed and what the adapter printed
// (RM-01 … RM-13 and the client's HT- rules). Server-role checks speak raw
// HTTP to the endpoint under test (a fresh session per check, ended with
// DELETE) and enforce the server's HT- rules of the requirements digest.
//
// Specs live in ordinary files so the CLI can import them; suite_test.go runs
// them against the reference implementations under `go test`.
package http

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A check file registers each check with one of these, then its body:
//
//	var _ = clientCheck(check.Descriptor{ID: "http.client.…", Title: …, Requirement: …,
//		Rules: []string{"HT-…"}, KilledBy: []mutant.Name{mutant.…}}, func(c *run.C) { … })
//
// clientCheck's body runs the client's adapter against an HTTP fake
// (c.RunHTTPClient), once per era of the descriptor that the client claims;
// eraChoiceCheck's runs once and names the era of each run itself;
// serverCheck's speaks raw HTTP to the server's URL.
var (
	clientCheck    = run.For(check.Client, check.HTTP)
	eraChoiceCheck = run.ForEraChoice(check.HTTP)
	serverCheck    = run.For(check.Server, check.HTTP)
)
