#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# in client mode against mcpconform's reference client: every client scenario
# of a released protocol version that the suite lists (`conformance list
# --client`), the auth/* ones included (the reference client authorizes
# itself with OAuth 2.1, headless, against the suite's mock authorization
# servers) and the [extension] ones aside, one `conformance client --scenario
# S` run each, with the client being client-shim.sh around `mcpconform
# adapter`.
#
# Usage: bash peers/official/run-client.sh [OUT_DIR]    (default ./reports/official-client)
#
# Installs Node.js and the pinned suite as run.sh does (install.sh, the same
# cache), builds mcpconform, and runs each scenario with expected-failures.yaml
# as the baseline (its client: entries); the suite judges each run. Writes to
# OUT_DIR:
#   scenarios.txt    `conformance list --client`, the list the scenarios come from
#   <scenario>.log   the suite's output for the scenario
#   results/         the suite's checks.json per scenario
#   verdicts.txt     "<scenario> <the suite's exit status>" per scenario
#   summary.md       scenario → the suite's exit → outcome → note, the failing ones
# Exits 0 when the suite exits 0 for every scenario (each passes, or fails
# only as the baseline lists); 1 otherwise (an unexpected failure or warning,
# a stale baseline entry, a run stopped at its timeout); 2 when something
# could not be installed or built, or the suite lists no scenario.
#
# Environment: OFFICIAL_CACHE_DIR and OFFICIAL_NODE as for run.sh;
# OFFICIAL_CALL_TIMEOUT_MS, the adapter's call timeout (default 10000);
# OFFICIAL_SUITE_TIMEOUT, seconds each scenario may run before it is stopped
# (default 120).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out_arg=${1:-$root/reports/official-client}
mkdir -p "$out_arg"
out=$(cd "$out_arg" && pwd)
cache=${OFFICIAL_CACHE_DIR:-${TMPDIR:-/tmp}/mcpconform-official}
suite_timeout=${OFFICIAL_SUITE_TIMEOUT:-120}
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

# The scenarios, as the suite lists them: "  - NAME [VERSION,…]". A released
# version is a date; [extension] scenarios are left out.
"$node" "$cli" list --client >"$out/scenarios.txt" 2>&1 ||
	die "conformance list --client failed: $(tail -n 3 "$out/scenarios.txt")"
mapfile -t scenarios < <(sed -n 's/^  - \([^ ]*\) \[\([^]]*\)\]$/\1 \2/p' "$out/scenarios.txt" |
	grep -E '^[^ ]+ .*[0-9]{4}-[0-9]{2}-[0-9]{2}' | cut -d' ' -f1)
((${#scenarios[@]})) || die "conformance list --client named no scenario of a released version; see $out/scenarios.txt"
echo "run-client.sh: ${#scenarios[@]} scenarios: ${scenarios[*]}"

rm -rf "$out/results"
: >"$out/verdicts.txt"
status=0
failed=()
for s in "${scenarios[@]}"; do
	# The suite judges against the baseline itself: 0 when the scenario
	# passes, or fails only in listed checks; 1 for an unlisted failure or
	# warning, or a listed check that passes.
	verdict=0
	mkdir -p "$(dirname "$out/$s.log")" # auth/NAME.log goes into auth/
	timeout --kill-after=10 "$suite_timeout" "$node" "$cli" client \
		--command "bash $here/client-shim.sh $tmp/mcpconform" --scenario "$s" \
		--expected-failures "$here/expected-failures.yaml" -o "$out/results" >"$out/$s.log" 2>&1 || verdict=$?
	echo "$s $verdict" >>"$out/verdicts.txt"
	if ((verdict)); then
		status=1
		failed+=("$s")
	fi
done

{
	echo "# Official MCP conformance suite against the reference client"
	echo
	echo "@modelcontextprotocol/conformance $CONFORMANCE_VERSION on Node.js $node_version," \
		"\`conformance client --scenario S --expected-failures expected-failures.yaml\` against" \
		"\`mcpconform adapter\` (client-shim.sh; $("$tmp/mcpconform" version)," \
		"commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))."
	echo
	"$node" "$here/summarize.mjs" --role client --results "$out/results" \
		--baseline "$here/expected-failures.yaml" --verdicts "$out/verdicts.txt"
	echo
	if ((status)); then
		echo "The suite failed ${failed[*]}: see each one's log in $out."
	else
		echo "The suite passed every scenario against the baseline."
	fi
} >"$out/summary.md" || die "summarizing the results failed; see the logs in $out"
cat "$out/summary.md"
echo "run-client.sh: results in $out"
exit "$status"
