package main

import (
	"github.com/mcpconform/mcpconform/harness/usage"
)

// The -h text of each command of this package (serve, adapter and
// fakeserver have theirs beside their code; client, server and the default
// run beside the run, in package certify).

var listHelp = usage.Help{
	Command:  "mcpconform list",
	Synopsis: []string{"[--format table|json]", "--mutants [--format table|json]"},
	About: `
Lists the check catalogue: each check's ID, level and title, cut to the
terminal's width (else $COLUMNS, else 120); -v adds its source, role,
transport, rules and their URLs, every cell whole; --format json also the
mutants that must fail it and the waits it spends.

--mutants lists the mutants and permitted variants of the reference client
and server instead (what --mutant of adapter and serve accepts): each one's
name, role, kind (mutant, planted for the fuzzer, or variant), the checks
that kill it and the rule it breaks or the one that permits it.`,
	Examples: []string{"mcpconform list", "mcpconform list --format json | jq '.checks[].id'",
		"mcpconform list --mutants --format json | jq -r '.mutants[] | select(.role == \"server\" and .kind == \"mutant\") | .name'"},
}

var rulesHelp = usage.Help{
	Command:  "mcpconform rules",
	Synopsis: []string{"[--coverage] [--format table|json|markdown]"},
	About: `
Lists every rule a check cites: its sentence, its source (the specification's
version and section with its URL, or the hardened profile's seed behaviour),
the checks that enforce it, and the reason no check can judge it from the
wire where that is so. The table is cut to the terminal's width (else
$COLUMNS, else 120), CHECKS counting the checks that cite a rule ("-" where
none can judge it); -v gives every column whole.

--coverage lists the specification's rules with the checks citing each or
its reason, then per area and role the MUST and SHOULD rules with a check,
with a reason, and the share of the judgeable ones that have a check.`,
	Examples: []string{"mcpconform rules", "mcpconform rules --format markdown > RULES.md", "mcpconform rules --coverage --format markdown"},
}

var selftestHelp = usage.Help{
	Command:  "mcpconform selftest",
	Synopsis: []string{"[--json F] [--matrix] [--fuzz=false] [--parallel N] [--seed N] [-v]", "--repeat N [--json F] [--seed N]"},
	About: `
Runs the suites against the reference client and server, which must pass
everything, and against every mutant, which the checks naming it must fail;
prints the kill matrix. Exit status 1 when a mutant survives or the
reference fails a check.

--repeat N instead certifies the reference server and a variant of it that
starts 3s late N times each, all at once and under CPU load: exit status 1
when a check's outcome differs between runs or any run FAILs, WARNs or
ERRORs.`,
	Examples: []string{"mcpconform selftest", "mcpconform selftest --matrix --json kill-matrix.json", "mcpconform selftest --repeat 3"},
}

var versionHelp = usage.Help{
	Command:  "mcpconform version",
	Synopsis: []string{""},
	About: `
Prints the module version and the commit the binary was built from, as every
report's tool.version shows them.`,
	Examples: []string{"mcpconform version"},
}
