#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# in client mode against mcpconform's reference client: every non-auth client
# scenario of 2025-11-25, one `conformance client --scenario S` run each,
# with the client being client-shim.sh around `mcpconform adapter`.
#
# Usage: bash peers/official/run-client.sh [OUT_DIR]    (default ./reports/official-client)
#
# Installs Node.js and the pinned suite as run.sh does (install.sh, the same
# cache), builds mcpconform, and runs each scenario with expected-failures.yaml
# as the baseline (its client: list). Writes to OUT_DIR:
#   <scenario>.log   the suite's output for the scenario
#   results/         the suite's checks.json per scenario
#   summary.md       scenario → outcome (PASS, FAIL, or XFAIL for a baseline entry)
# Exits 0 when every scenario outside the baseline passes and every baseline
# scenario still fails; 1 otherwise; 2 when something could not be installed
# or built.
#
# Environment: OFFICIAL_CACHE_DIR and OFFICIAL_NODE as for run.sh;
# OFFICIAL_CALL_TIMEOUT_MS, the adapter's call timeout (default 10000).
set -euo pipefail

# Pinned versions: keep them equal to run.sh's.
NODE_VERSION=22.23.3
CONFORMANCE_VERSION=0.1.16

# The scenarios: `conformance list` client scenarios of 2025-11-25, auth/* aside.
scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out_arg=${1:-$root/reports/official-client}
mkdir -p "$out_arg"
out=$(cd "$out_arg" && pwd)
cache=${OFFICIAL_CACHE_DIR:-${TMPDIR:-/tmp}/mcpconform-official}
start_timeout=10
stop_grace=5

name=run-client.sh
tmp=$(mktemp -d)
# shellcheck source=peers/background.sh
source "$here/../background.sh"
# shellcheck source=peers/official/install.sh
source "$here/install.sh"

(cd "$root" && go build -o "$tmp/mcpconform" ./cmd/mcpconform) || die "building mcpconform failed"
case $tmp in *" "*) die "the scratch directory $tmp contains a space; the suite splits --command on spaces (set TMPDIR)" ;; esac

# The baseline: the scenario names listed under client: (each with its reason).
baseline=$(sed -n '/^client:/,/^[a-z]/p' "$here/expected-failures.yaml" | sed -n 's/^ *- *\([^ #]*\).*/\1/p')

rm -rf "$out/results"
status=0
{
	echo "# Official MCP conformance suite against the reference client"
	echo
	echo "@modelcontextprotocol/conformance $CONFORMANCE_VERSION on Node.js $node_version," \
		"\`conformance client --scenario S\` against \`mcpconform adapter\` (client-shim.sh)."
	echo
	echo "| scenario | outcome |"
	echo "| --- | --- |"
} >"$out/summary.md"
for s in "${scenarios[@]}"; do
	# The suite judges against the baseline itself: 0 when the scenario
	# passes unlisted or fails listed, 1 for an unlisted failure or a stale entry.
	verdict=0
	"$node" "$cli" client --command "bash $here/client-shim.sh $tmp/mcpconform" --scenario "$s" \
		--expected-failures "$here/expected-failures.yaml" -o "$out/results" >"$out/$s.log" 2>&1 || verdict=$?
	listed=no
	grep -qx -- "$s" <<<"$baseline" && listed=yes
	case $verdict/$listed in
	0/no) outcome=PASS ;;
	0/yes) outcome=XFAIL ;;
	*/yes) outcome="STALE (passes; remove it from expected-failures.yaml)" status=1 ;;
	*) outcome="FAIL (see $s.log)" status=1 ;;
	esac
	echo "| $s | $outcome |" >>"$out/summary.md"
done
cat "$out/summary.md"
echo "run-client.sh: results in $out"
exit "$status"
