#!/usr/bin/env bash
# Runs the official MCP conformance suite and mcpconform side by side against
# @modelcontextprotocol/server-everything over streamable HTTP, interleaved
# over a few rounds, and tells how long each took and how many distinct
# requirements each ran.
#
# Usage: bash peers/official/compare-everything.sh [OUT_DIR]    (default ./reports/everything)
#
# Installs Node.js 22, the pinned suite and server-everything from the npm
# registry into a cache directory (reused by later runs; everything/ holds
# their package.json and package-lock.json), builds mcpconform, then for each
# round starts `server-everything streamableHttp` on 127.0.0.1 (a free port;
# everything/loopback.mjs keeps it on loopback and prints its URL) and runs,
# in alternating order, `conformance server --url URL --suite all` and
# `mcpconform server --url URL`, each timed from start to exit, then stops the
# server. The gzip-file-as-resource tool may fetch only from 127.0.0.1
# (GZIP_ALLOWED_DOMAINS): calling every tool must not make the server reach
# another host. Prints each round's wall times, the medians, their ratio and
# the requirement counts (everything/compare.mjs), also written to
# OUT_DIR/compare.md beside each run's output:
#   official-N.log, official-N/   the suite's output and its results
#   mcpconform-N.log, .json       mcpconform's output and its JSON index
#   server-N.log                  server-everything's stderr
#   times.tsv                     round, tool, seconds, exit status
#   scenarios.txt                 the suite's server scenarios and their versions
# Exits 0 when mcpconform's median time is at most the suite's, 1 when it is
# longer, 2 when something could not be installed, built, started or run (a
# run that stops at a usage or harness error, or at the timeout). Verdicts on
# server-everything do not count: both tools find failures in it.
#
# Environment:
#   OFFICIAL_CACHE_DIR       cache for Node.js and the packages
#                            (default ${TMPDIR:-/tmp}/mcpconform-official)
#   OFFICIAL_NODE            a Node.js >= 22 binary to use instead of installing one
#   COMPARE_ROUNDS           rounds (default 3)
#   COMPARE_MCPCONFORM_ARGS  extra `mcpconform server` flags, e.g.
#                            "--fixtures peers/official/everything/fixtures.yaml"
#   OFFICIAL_START_TIMEOUT   seconds to wait for the server's URL line (default 10)
#   OFFICIAL_STOP_GRACE      seconds for each step of the server's shutdown (default 5)
#   OFFICIAL_SUITE_TIMEOUT   seconds each run may take before it is stopped (default 300)
set -euo pipefail

# Pinned versions: Node.js in peers/node.sh, the suite in everything/package.json
# (install.sh reads it there); keep EVERYTHING_VERSION equal to the
# server-everything of everything/package.json, whose package-lock.json pins
# the whole tree.
EVERYTHING_VERSION=2026.8.31

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out_arg=${1:-$root/reports/everything}
mkdir -p "$out_arg"
out=$(cd "$out_arg" && pwd)
cache=${OFFICIAL_CACHE_DIR:-${TMPDIR:-/tmp}/mcpconform-official}
rounds=${COMPARE_ROUNDS:-3}
mcpconform_args=${COMPARE_MCPCONFORM_ARGS:-}
start_timeout=${OFFICIAL_START_TIMEOUT:-10}
stop_grace=${OFFICIAL_STOP_GRACE:-5}
suite_timeout=${OFFICIAL_SUITE_TIMEOUT:-300}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "compare-everything.sh: COMPARE_ROUNDS must be 1 or more, got '$rounds'" >&2; exit 2; }

name=compare-everything.sh
tmp=$(mktemp -d)
# shellcheck source=peers/background.sh
source "$here/../background.sh"
suite_lock=$here/everything
suite_name=everything
# shellcheck source=peers/official/install.sh
source "$here/install.sh"

everything=$suite_dir/node_modules/@modelcontextprotocol/server-everything
installed=$("$node" -p "require(process.argv[1]).version" "$everything/package.json") ||
	die "cannot read the installed server-everything's version"
[[ $installed == "$EVERYTHING_VERSION" ]] ||
	die "everything/package-lock.json installs server-everything $installed, but $name pins $EVERYTHING_VERSION"

(cd "$root" && go build -o "$tmp/mcpconform" ./cmd/mcpconform) || die "building mcpconform failed"
"$node" "$cli" list --server >"$out/scenarios.txt" 2>&1 || die "conformance list --server failed: $(tail -n 3 "$out/scenarios.txt")"

# timed TOOL ROUND LOG CMD…: runs CMD with its output in LOG and appends its
# wall time and exit status to times.tsv.
timed() {
	local tool=$1 round=$2 log=$3 start status=0
	shift 3
	start=$EPOCHREALTIME
	timeout --kill-after=10 "$suite_timeout" "$@" {bg_stdin}>&- >"$log" 2>&1 || status=$?
	printf '%s\t%s\t%s\t%s\n' "$round" "$tool" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')" "$status" >>"$out/times.tsv"
	echo "$name: round $round, $tool: exit $status"
	case $status in
	0 | 1) ;;
	124) die "$tool ran longer than ${suite_timeout}s in round $round; see $log" ;;
	*) die "$tool could not run in round $round (exit $status); see $log" ;;
	esac
}

official() {
	rm -rf "$out/official-$1"
	timed official "$1" "$out/official-$1.log" "$node" "$cli" server --url "$url" --suite all -o "$out/official-$1"
}

mcpconform() {
	# shellcheck disable=SC2086 # mcpconform_args is a list of flags
	timed mcpconform "$1" "$out/mcpconform-$1.log" "$tmp/mcpconform" server --url "$url" --no-color --json "$out/mcpconform-$1.json" $mcpconform_args
}

: >"$out/times.tsv"
for round in $(seq 1 "$rounds"); do
	start_background "$out/server-$round.log" env PORT=0 GZIP_ALLOWED_DOMAINS=127.0.0.1 \
		"$node" --import "$here/everything/loopback.mjs" "$everything/dist/index.js" streamableHttp
	url=$url/mcp
	echo "$name: round $round: server-everything $EVERYTHING_VERSION listens at $url"
	if ((round % 2)); then
		official "$round"
		mcpconform "$round"
	else
		mcpconform "$round"
		official "$round"
	fi
	stop_background
	rm -f "$tmp/bg.stdin" # start_background makes it anew
done

{
	echo "# mcpconform and the official suite against server-everything"
	echo
	echo "@modelcontextprotocol/conformance $CONFORMANCE_VERSION and @modelcontextprotocol/server-everything" \
		"$EVERYTHING_VERSION (streamableHttp) on Node.js $node_version; \`mcpconform server --url URL $mcpconform_args\`" \
		"($("$tmp/mcpconform" version), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))."
	echo
	"$node" "$here/everything/compare.mjs" "$out"
} >"$out/compare.md" || die "comparing the runs failed; see $out"
cat "$out/compare.md"

# The verdict: mcpconform's median wall time against the suite's.
medians=$(sed -n 's/^| median | \([0-9.]*\) | \([0-9.]*\) |$/\1 \2/p' "$out/compare.md")
[[ -n $medians ]] || die "no medians in $out/compare.md"
read -r suite_median mcpconform_median <<<"$medians"
if awk -v a="$mcpconform_median" -v b="$suite_median" 'BEGIN { exit !(a > b) }'; then
	echo "$name: mcpconform took longer than the official suite (median ${mcpconform_median}s against ${suite_median}s)"
	exit 1
fi
echo "$name: results in $out"
