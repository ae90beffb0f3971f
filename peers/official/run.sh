#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# server mode, every scenario) against mcpconform's reference server.
#
# Usage: bash peers/official/run.sh [OUT_DIR]    (OUT_DIR defaults to ./reports/official)
#
# Installs Node.js 22 and the pinned suite from the npm registry into a cache
# directory (reused by later runs), builds mcpconform, starts
# `mcpconform serve --transport http` on loopback, waits for its {"url":…}
# line, runs `conformance server --suite all` with expected-failures.yaml as the
# baseline, then stops the server. Writes to OUT_DIR:
#   conformance.log  the suite's output
#   results/         the suite's checks.json per scenario
#   summary.md       scenario → outcome → note (summarize.mjs)
#   server.log       the reference server's stderr
# Exits 0 when every scenario outside the baseline passes without warnings and
# every baseline scenario still fails; 1 otherwise (the suite's verdict); 2 when
# something could not be installed, built or started.
#
# Environment:
#   OFFICIAL_CACHE_DIR      cache for Node.js and the suite
#                           (default ${TMPDIR:-/tmp}/mcpconform-official)
#   OFFICIAL_NODE           a Node.js >= 22 binary to use instead of installing one
#   OFFICIAL_SERVE_ARGS     extra `mcpconform serve` flags (default --page-size 100;
#                           the baseline is measured with the default)
#   OFFICIAL_START_TIMEOUT  seconds to wait for the server's URL line (default 10)
#   OFFICIAL_STOP_GRACE     seconds for each step of the server's shutdown (default 5)
#   OFFICIAL_SUITE_TIMEOUT  seconds the suite may run before it is stopped (default 300;
#                           the run then fails with timeout's status 124)
set -euo pipefail

# Pinned versions. The suite's whole dependency tree is pinned by
# package-lock.json beside this script; keep CONFORMANCE_VERSION equal to the
# version in package.json.
NODE_VERSION=22.23.3
CONFORMANCE_VERSION=0.1.16

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out_arg=${1:-$root/reports/official}
mkdir -p "$out_arg"
out=$(cd "$out_arg" && pwd)
cache=${OFFICIAL_CACHE_DIR:-${TMPDIR:-/tmp}/mcpconform-official}
serve_args=${OFFICIAL_SERVE_ARGS:---page-size 100}
start_timeout=${OFFICIAL_START_TIMEOUT:-10}
stop_grace=${OFFICIAL_STOP_GRACE:-5}
suite_timeout=${OFFICIAL_SUITE_TIMEOUT:-300}

name=run.sh
tmp=$(mktemp -d)
# shellcheck source=peers/background.sh
source "$here/../background.sh"
# shellcheck source=peers/official/install.sh
source "$here/install.sh"

# --- the reference server ----------------------------------------------------
(cd "$root" && go build -o "$tmp/mcpconform" ./cmd/mcpconform) || die "building mcpconform failed"

# shellcheck disable=SC2086 # serve_args is a list of flags
start_background "$out/server.log" "$tmp/mcpconform" serve --transport http $serve_args
echo "run.sh: the reference server listens at $url (serve --transport http $serve_args)"

# --- the suite ---------------------------------------------------------------
rm -rf "$out/results"
status=0
timeout --kill-after=10 "$suite_timeout" "$node" "$cli" server --url "$url" --suite all \
	--expected-failures "$here/expected-failures.yaml" \
	-o "$out/results" {bg_stdin}>&- >"$out/conformance.log" 2>&1 || status=$?
stop_background

{
	echo "# Official MCP conformance suite against the reference server"
	echo
	echo "@modelcontextprotocol/conformance $CONFORMANCE_VERSION on Node.js $node_version," \
		"\`conformance server --suite all\` against \`mcpconform serve --transport http $serve_args\`."
	echo
	"$node" "$here/summarize.mjs" "$out/results" "$here/expected-failures.yaml"
} >"$out/summary.md" || die "summarizing the results failed; see $out/conformance.log"

cat "$out/summary.md"
# The suite's own verdict on the baseline (its last lines, colours removed).
# Its "Total: N passed, N failed" line stays in conformance.log: CI runners
# read such a line as a test count, and its failures may all be expected.
sed -n '/=== SUMMARY ===/,$p' "$out/conformance.log" | sed 's/\x1b\[[0-9;]*m//g' |
	sed -n '/Total:/,$p' | sed '/^Total:/d'
echo "run.sh: results in $out (suite exit status $status)"
exit "$status"
