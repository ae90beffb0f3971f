// Package stdio holds the checks of the stdio transport. Client-role checks
// run the client's adapter against the fake servers in package stdiofake and
// judge from what the adapter printed and what the fake recorded; they enforce
// the seed rules NG-01 … NG-12 and the spec's stdio and lifecycle rules.
//
// Specs live in ordinary files so the CLI can import them; suite_test.go runs
// them against the reference client under `go test`.
package stdio

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A check file registers each check with clientCheck, then its body:
//
//	var _ = clientCheck(check.Descriptor{ID: "stdio.client.…", Title: …, Requirement: …,
//		Rules: []string{"NG-…"}, KilledBy: []mutant.Name{mutant.…}}, func(c *run.C) { … })
//
// The body runs the client's adapter against a stdio fake
// (c.RunStdioClient) and judges what the adapter printed and the fake
// recorded, once per era of the descriptor that the client claims (the
// fake serves it, the adapter is told it). eraChoiceCheck's body runs once
// and names the era of each run itself (the client's own choice when it
// names none).
var (
	clientCheck    = run.For(check.Client, check.Stdio)
	eraChoiceCheck = run.ForEraChoice(check.Stdio)
)
