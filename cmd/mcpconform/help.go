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

var fuzzHelp = usage.Help{
	Command: "mcpconform fuzz",
	Synopsis: []string{
		"[flags] -- CMD…   fuzz the stdio server CMD…",
		"[flags] --url U   fuzz the streamable HTTP server at U",
		"[flags]           fuzz the built-in reference server, stdio then HTTP",
	},
	About: `
Fuzzes an MCP server: gopter's stateful commands drive a model of the
session (initialize, list, call, ping, cancel, set level, progress,
subscriptions; over HTTP also DELETE and wrong headers; requests in
flight together, and cancels racing them) interleaved with damaged
frames, and check the invariants after every frame. A failure is
shrunk to a minimal case and the search goes on, until --duration,
--iterations or --max-findings: findings are grouped by their signature
(the invariant and the shape of the minimal case, without its ids and
strings), each group printed once with its count and first sequence, and
its case saved under --corpus. A signature listed under fuzz: in the
--expected-failures file is reported as known and fails nothing.
--profile spec (the default for a server you name) judges the
specification's invariants only; hardened (the default for the built-in
reference) adds max-rss and no-leftovers, and makes an answer to a
running slow call after its cancel a finding, not a warning
(no-response-after-cancel). Without a target it fuzzes the
built-in reference server over stdio, then over streamable HTTP, half
the duration each.

--bench measures instead: per target, four phases of a quarter of the
duration each (a ping round-trip loop on one connection, the fuzzer with
one worker, the loop on two connections, the fuzzer with two workers),
and prints executions per second beside the ceiling.

Exit status: 0 no new finding; 1 a new finding; 2 usage or harness error;
130 or 143 SIGINT or SIGTERM stopped it (the summary so far is printed).`,
	Examples: []string{
		"mcpconform fuzz --duration 5m -- ./my-server --stdio",
		"mcpconform fuzz --url http://127.0.0.1:8080/mcp --seed 42 --iterations 200 --corpus corpus",
		"mcpconform fuzz --duration 10m --max-findings 5 --expected-failures baseline.yaml -- ./my-server",
		"mcpconform fuzz --bench --duration 20s",
	},
}

var replayHelp = usage.Help{
	Command: "mcpconform replay",
	Synopsis: []string{
		"[flags] FILE… -- CMD…   replay against the stdio server CMD…",
		"[flags] FILE… --url U   replay against the streamable HTTP server at U",
		"[flags] FILE…           replay against the built-in reference server, both transports",
	},
	About: `
Runs corpus cases (see corpus/README.md) against a server: each case's
frames in order, a probe ping after each, the fuzzer's invariants after
every frame. A case marked for one transport is skipped on the other. Flags
may come before or after the files.

Exit status: 0 every invariant held; 1 one broke; 2 usage or harness error.`,
	Examples: []string{
		"mcpconform replay corpus/*.case",
		"mcpconform replay corpus/edge-ids.case --timeout 10s -- ./my-server --stdio",
	},
}
