//go:build ignore

// gen writes rules.tsv, the rule table, from the two documents the rules
// come from: the MCP specification digest (../shared/spec/mcp-requirements.md,
// the spec profile) and the seed semantics (../shared/seeds/SEMANTICS.md,
// the hardened profile). The documents hold no reasons: gen keeps the reason
// rules.tsv already gives each rule still in them. Run it from this
// directory with go generate.
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
	old, err := os.ReadFile("rules.tsv")
	if err != nil {
		fail(err)
	}
	before, err := rules.ReadTSV(old)
	if err != nil {
		fail(err)
	}
	var b strings.Builder
	rules.WriteTSV(&b, rules.KeepReasons(table, before))
	if err := os.WriteFile("rules.tsv", []byte(b.String()), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
