package certify

import (
	"github.com/mcpconform/mcpconform/harness/usage"
)

// The -h text of the certifying commands: client, server and the default run.

// certifyAbout is what client, server and the default run share: the
// console and the exit status.
const certifyAbout = `
On a terminal a live line shows the count per outcome, the checks running,
the time elapsed and what is left; elsewhere each finished check prints one
plain line (outcome, ID, time). Then the failures with what was expected and
observed, and the summary.

Exit status: 0 every required check passed; 1 a check failed or a baseline
entry is stale; 2 usage or harness error, or --run-timeout spent; 130 or 143
SIGINT or SIGTERM.`

var runHelp = map[string]usage.Help{
	"client": {
		Command: "mcpconform client",
		Synopsis: []string{
			"[flags] -- CMD…   certify the client that the adapter CMD… drives",
			"[flags]           certify the built-in reference client",
		},
		About: `
Runs the client checks. Each check runs the adapter CMD… once, with the
transport and the (fake) server to connect to in its environment
(MCPCONFORM_TRANSPORT, MCPCONFORM_SERVER_COMMAND or MCPCONFORM_SERVER_URL);
the adapter makes the client under test connect, call each tool and close,
printing a JSON line per step (docs/client.md).
` + certifyAbout,
		Examples: []string{
			"mcpconform client -- ./my-adapter",
			"mcpconform client --json r.json --junit r.xml --expected-failures baseline.yaml -- node adapter.js",
			"mcpconform client --label-filter 'transport:stdio && level:MUST' -- ./my-adapter",
		},
	},
	"server": {
		Command: "mcpconform server",
		Hidden:  []string{"snapshots", "update-snapshots"},
		Synopsis: []string{
			"[flags] -- CMD…           certify the stdio server CMD… (a fresh process per check)",
			"[flags] --url U           certify the streamable HTTP server at U (a fresh session per check)",
			"[flags] --url U -- CMD…   both transports in one run",
			"[flags]                   certify the built-in reference server, both transports",
		},
		About: `
Runs the server checks. Checks that need a behaviour (progress, logging,
sampling, a slow or failing tool) find its tool in --fixtures, else by the
official conformance suite's fixture names, else as a discovery pass found
it by calling each tool once (progress, logging, sampling, elicitation,
roots; mcpconform fixtures --suggest prints what it finds), else they are
UNIMPLEMENTED. A check calls only the tools the server marks
readOnlyHint: true and not openWorldHint: true, and those --fixtures names
(--call-tools all calls every tool); the summary lists the tools called
and those left alone.
` + certifyAbout,
		Examples: []string{
			"mcpconform server -- ./my-server --stdio",
			"mcpconform server --url http://127.0.0.1:8080/mcp --fixtures fixtures.yaml --json r.json --junit r.xml",
			"mcpconform server --only server.ping.after-initialize --color never -- npx -y my-mcp-server",
		},
	},
	"mcpconform": {
		Command: "mcpconform",
		Synopsis: []string{
			"[flags]                  certify the built-in reference client and server",
			"client [flags] [-- CMD…] certify a client through its adapter (default: the reference adapter)",
			"server [flags] [--url U] [-- CMD…]",
			"                         certify a server over streamable HTTP and/or stdio (default: the reference, both)",
			"serve [--mutant M]       the reference server over streamable HTTP (prints its URL)",
			"auth-token --as URL      a token of the authorization server of serve --auth",
			"fixtures --suggest [flags] [--url U | -- CMD…]",
			"                         print the fixtures file a server run would use, the tools found by calling them",
			"selftest [flags]         run the reference and every mutant; report the kill matrix",
			"fuzz [flags] [--url U | -- CMD…]",
			"                         fuzz a server (default: the reference, both transports)",
			"replay FILE… [--url U | -- CMD…]",
			"                         run corpus cases again; exit 1 when an invariant breaks",
			"list [-v] [--format table|json]",
			"                         every check with its rules and their URLs",
			"rules [--format table|json|markdown]",
			"                         every rule with its sentence, its source and the checks that cite it",
			"adapter [--mutant M]     the reference client, speaking the adapter contract",
			"fakeserver --case ID …   one fake stdio server (what client adapters spawn)",
			"badge REPORT.json [-o FILE]",
			"                         an SVG badge (shields style) of a JSON report",
			"baseline REPORT.json [OLD]",
			"                         an expected-failures baseline from a JSON report",
			"version                  the module version and the commit it was built from",
			"help [COMMAND]           this text, or a command's (the same as COMMAND -h)",
		},
		About: `
mcpconform certifies MCP clients and servers. Alone, it runs every client and
server check against the built-in references under the hardened profile:
what mcpconform itself holds to. "mcpconform COMMAND -h" shows a command's
synopsis, examples and flags; the flags below are those of mcpconform alone.
` + certifyAbout,
		Examples: []string{
			"mcpconform",
			"mcpconform server --url http://127.0.0.1:8080/mcp --junit junit.xml --json report.json",
			"mcpconform client -- ./my-adapter",
		},
	},
}
