#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# server mode) against mcpconform's reference server, once per requirement set
# and era the project certifies:
#
#   2025-11-25         --requirements 2025-11-25  against serve --era dual    judged
#   2026-07-28         --requirements 2026-07-28  against serve --era dual    judged
#   2026-07-28-modern  --requirements 2026-07-28  against serve --era modern  judged
#   all                --suite all                against serve --era dual --tasks  reported
#
# A requirement set runs exactly the scenarios its revision requires, at its
# wire, and also runs (and reports, never scores) its pending, extension and
# added-after-release scenarios. A judged run's verdict is the suite's exit
# status with a baseline (the suite's --expected-failures): expected-failures.yaml
# for the 2026-07-28 runs, none for 2025-11-25 (every scored scenario must pass
# without a warning). `--suite all` adds the scenarios no requirement set runs
# (the skills extension); its exit status is reported, not judged. It runs
# against `serve --tasks`, which serves the tasks extension the suite's
# tasks-* scenarios test (an extension, so off by default).
#
# Usage: bash peers/official/run.sh [OUT_DIR]    (OUT_DIR defaults to ./reports/official)
#
# Installs Node.js 22 and the pinned suite from the npm registry into a cache
# directory (reused by later runs), builds mcpconform, and for each run starts
# `mcpconform serve --transport http $OFFICIAL_SERVE_ARGS --era ERA` on
# loopback, waits for its {"url":…} line, runs the suite, then stops the server.
# Writes to OUT_DIR:
#   summary.md       per run: the command, the suite's verdict, scenario →
#                    scored → outcome → note (summarize.mjs), the failing ones
#   RUN/conformance.log  the suite's output
#   RUN/results/     the suite's checks.json per scenario
#   RUN/scenarios.txt    `conformance list --server --requirements R`
#   RUN/server.log   the reference server's stderr
# Exits 0 when every judged run exits 0; 1 when one does not (an unexpected
# failure or warning, a stale baseline entry, or a run stopped at its
# timeout); 2 when something could not be installed, built or started.
#
# Environment:
#   OFFICIAL_CACHE_DIR      cache for Node.js and the suite
#                           (default ${TMPDIR:-/tmp}/mcpconform-official)
#   OFFICIAL_NODE           a Node.js >= 22 binary to use instead of installing one
#   OFFICIAL_SERVE_ARGS     `mcpconform serve` flags besides --era (default
#                           --page-size 100; the baseline is measured with the default)
#   OFFICIAL_START_TIMEOUT  seconds to wait for the server's URL line (default 10)
#   OFFICIAL_STOP_GRACE     seconds for each step of the server's shutdown (default 5)
#   OFFICIAL_SUITE_TIMEOUT  seconds each run may take before it is stopped (default 300;
#                           the run then fails with timeout's status 124)
set -euo pipefail

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

# The runs: name, era served, the suite's selection, the baseline (a file
# beside this script; "none" judges against an empty one; "-" reports the run
# without judging it), then any further serve flags.
runs=(
	"2025-11-25 dual --requirements=2025-11-25 none"
	"2026-07-28 dual --requirements=2026-07-28 expected-failures.yaml"
	"2026-07-28-modern modern --requirements=2026-07-28 expected-failures.yaml"
	"all dual --suite=all - --tasks"
)
printf 'server: []\n' >"$tmp/none.yaml"

(cd "$root" && go build -o "$tmp/mcpconform" ./cmd/mcpconform) || die "building mcpconform failed"

{
	echo "# Official MCP conformance suite against the reference server"
	echo
	echo "@modelcontextprotocol/conformance $CONFORMANCE_VERSION on Node.js $node_version against" \
		"\`mcpconform serve --transport http $serve_args\` ($("$tmp/mcpconform" version)," \
		"commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))."
} >"$out/summary.md"

status=0
for run in "${runs[@]}"; do
	read -r run_name era selection baseline run_flags <<<"$run"
	dir=$out/$run_name
	rm -rf "$dir"
	mkdir -p "$dir"
	judge=()
	case $baseline in
	-) ;;
	none) judge=(--expected-failures "$tmp/none.yaml") ;;
	*) judge=(--expected-failures "$here/$baseline") ;;
	esac
	list=()
	if [[ $selection == --requirements=* ]]; then
		"$node" "$cli" list --server "$selection" >"$dir/scenarios.txt" 2>&1 ||
			die "conformance list --server $selection failed: $(tail -n 3 "$dir/scenarios.txt")"
		list=(--list "$dir/scenarios.txt")
	fi

	# shellcheck disable=SC2086 # serve_args and run_flags are lists of flags
	start_background "$dir/server.log" "$tmp/mcpconform" serve --transport http $serve_args --era "$era" ${run_flags:-}
	echo "run.sh: $run_name: the reference server listens at $url (serve --era $era${run_flags:+ $run_flags}); conformance server $selection"
	verdict=0
	timeout --kill-after=10 "$suite_timeout" "$node" "$cli" server --url "$url" "$selection" "${judge[@]}" \
		-o "$dir/results" {bg_stdin}>&- >"$dir/conformance.log" 2>&1 || verdict=$?
	stop_background
	rm -f "$tmp/bg.stdin" # start_background makes it anew
	[[ -d $dir/results ]] || die "the suite wrote no results in run $run_name (exit $verdict); see $dir/conformance.log"

	case $baseline/$verdict in
	-/0 | -/1) judged="reported, not judged: exit $verdict" ;;
	*/0) judged="exit 0, passes" ;;
	*/124) judged="exit 124, stopped after ${suite_timeout}s: FAILS" status=1 ;;
	-/*) die "the suite could not run $run_name (exit $verdict); see $dir/conformance.log" ;;
	*) judged="exit $verdict: FAILS" status=1 ;;
	esac
	{
		echo
		echo "## $run_name: \`conformance server ${selection/=/ }\` against \`serve --era $era${run_flags:+ $run_flags}\` ($judged)"
		echo
		[[ $baseline == - || $baseline == none ]] || echo "Baseline: \`$baseline\` (its \`server:\` entries)."
		[[ $baseline != none ]] || echo "Baseline: none (every scored scenario passes without a warning)."
		[[ $baseline != - ]] || echo "Not judged: the scenarios no requirement set runs, reported beside the rest."
		echo
		"$node" "$here/summarize.mjs" --role server --results "$dir/results" "${list[@]}" \
			${judge[1]:+--baseline "${judge[1]}"}
		# The suite's own verdict on the baseline (its last lines, colours
		# removed). Its "Total: N passed, N failed" line stays in
		# conformance.log: CI runners read such a line as a test count, and its
		# failures may all be expected.
		if ((${#judge[@]})); then
			echo
			echo '```'
			sed 's/\x1b\[[0-9;]*m//g' "$dir/conformance.log" | sed -n '/^Expected failures\|^Stale baseline\|^Unexpected failures\|^Baseline /,$p'
			echo '```'
		fi
	} >>"$out/summary.md" || die "summarizing run $run_name failed; see $dir/conformance.log"
done

cat "$out/summary.md"
echo "run.sh: results in $out"
exit "$status"
