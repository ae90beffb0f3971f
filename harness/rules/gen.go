//go:build ignore

// gen writes rules.tsv, the rule table, from the two documents the rules
// come from: the MCP specification digest (../shared/spec/mcp-requirements.md,
// the spec profile) and the seed semantics (../shared/seeds/SEMANTICS.md,
// the hardened profile). Run it from this directory with go generate.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcpconform/mcpconform/harness/rules"
)

func main() {
	spec, err := os.ReadFile("../../../shared/spec/mcp-requirements.md")
	if err != nil {
		fail(err)
	}
	seeds, err := os.ReadFile("../../../shared/seeds/SEMANTICS.md")
	if err != nil {
		fail(err)
	}
	table, err := rules.FromDocuments(spec, seeds)
	if err != nil {
		fail(err)
	}
	var b strings.Builder
	rules.WriteTSV(&b, table)
	if err := os.WriteFile("rules.tsv", []byte(b.String()), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
