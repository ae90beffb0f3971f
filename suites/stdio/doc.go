// Package stdio holds the checks of the stdio transport. Client-role checks
// run the client's adapter against the fake servers in package stdiofake and
// judge from what the adapter printed and what the fake recorded; they enforce
// the seed rules NG-01 … NG-12 and the spec's stdio and lifecycle rules.
//
// Specs live in ordinary files so the CLI can import them; suite_test.go runs
// them against the reference client under `go test`.
package stdio
