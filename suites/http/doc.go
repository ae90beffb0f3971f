// Package http holds the checks of the streamable HTTP transport. Server-role
// checks speak raw HTTP to the endpoint under test (a fresh session per check,
// ended with DELETE) and enforce the HT- rules of the requirements digest.
//
// Specs live in ordinary files so the CLI can import them; suite_test.go runs
// them against the reference implementations under `go test`.
package http
