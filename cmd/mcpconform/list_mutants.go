package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/serve"
)

// Kinds of a mutantEntry.
const (
	kindMutant  = "mutant"  // breaks one rule; the checks of KilledBy kill it
	kindPlanted = "planted" // a bug planted for the fuzzer, which finds it
	kindVariant = "variant" // permitted by the spec; no check fails it under spec
)

// mutantEntry is one mutant or permitted variant of a reference, as
// mcpconform list --mutants gives it.
type mutantEntry struct {
	Name        mutant.Name `json:"name"`
	Role        string      `json:"role"`
	Kind        string      `json:"kind"`
	Description string      `json:"description"`
	// Transport is what a server mutant or any variant changes: "any" (the
	// MCP server, its stdio transport or the serve command: serve --mutant
	// takes it on either transport), "http" (the streamable HTTP server
	// transport) or, for a client variant, "stdio". Empty for a client
	// mutant.
	Transport string `json:"transport,omitempty"`
	// Era is "modern" for a server mutant or variant whose reference serves
	// the 2026-07-28 era alone (serve --era modern): what it breaks shows
	// beside a reference of that era alone. Empty for the others.
	Era string `json:"era,omitempty"`
	// Auth is true for a mutant of the server as a protected resource:
	// it is served with serve --auth --mutant NAME, and its checks need
	// the token command serve --auth prints.
	Auth bool `json:"auth,omitempty"`
	// KilledBy are the checks that kill it (for a variant: under --profile
	// hardened), as each check's killed_by names it.
	KilledBy []string `json:"killed_by"`
	// PermittedBy are the rules that permit a variant.
	PermittedBy []string `json:"permitted_by,omitempty"`
}

// mutantEntries lists every mutant, then every permitted variant, each
// sorted by name.
func mutantEntries() []mutantEntry {
	var out []mutantEntry
	for _, m := range mutant.All() {
		kind := kindMutant
		if m.Planted() {
			kind = kindPlanted
		}
		e := mutantEntry{Name: m.Name, Role: m.Role, Kind: kind, Description: m.Description, KilledBy: killedBy(m.Name)}
		if m.Role == "server" {
			e.Transport = "http"
			if mutant.OfServerProtocol(m.Name) {
				e.Transport = "any"
			}
			e.Era = eraOf(m.Name)
			e.Auth = mutant.OfServerAuth(m.Name)
		}
		out = append(out, e)
	}
	for _, v := range mutant.Variants() {
		out = append(out, mutantEntry{Name: v.Name, Role: v.Role, Kind: kindVariant, Description: v.Description, KilledBy: killedBy(v.Name),
			Transport: v.Transport, PermittedBy: v.PermittedBy, Era: eraOf(v.Name)})
	}
	return out
}

// eraOf is a mutant's Era: "modern" when its reference serves 2026-07-28
// alone.
func eraOf(m mutant.Name) string {
	if serve.ModernOnly(m) {
		return "modern"
	}
	return ""
}

// killedBy is check.KilledBy, never nil (an empty JSON list).
func killedBy(n mutant.Name) []string { return append([]string{}, check.KilledBy(n)...) }

func listMutants(format string, verbose bool, stdout, stderr io.Writer) int {
	entries := mutantEntries()
	switch format {
	case "json":
		if err := writeIndented(stdout, map[string]any{"mutants": entries}); err != nil {
			return exitFor(err, stderr)
		}
	case "table":
		header := []string{"NAME", "ROLE", "KIND", "DESCRIPTION"}
		if verbose {
			header = []string{"NAME", "ROLE", "KIND", "TRANSPORT", "KILLED BY", "DESCRIPTION"}
		}
		rows := make([][]string, 0, len(entries))
		for _, e := range entries {
			if verbose {
				rows = append(rows, []string{string(e.Name), e.Role, e.Kind, e.Transport, strings.Join(e.KilledBy, ","), e.Description})
			} else {
				rows = append(rows, []string{string(e.Name), e.Role, e.Kind, e.Description})
			}
		}
		if err := table(stdout, verbose, header, nil, rows); err != nil {
			return exitFor(err, stderr)
		}
		fmt.Fprintf(stdout, "%d mutants and variants (-v: every column, whole)\n", len(entries))
	default:
		return exitFor(errUsage{fmt.Errorf("list: --format must be table or json, got %q", format)}, stderr)
	}
	return 0
}
