#!/usr/bin/env bash
# Cross-checks mcpconform with the official MCP conformance suite
# (@modelcontextprotocol/conformance, server mode): runs both against the
# reference server and against every server mutant of it, and tells which
# tool kills which mutant. Not part of CI (it takes minutes).
#
# Usage: bash peers/official/cross-check.sh [OUT_DIR]    (default ./reports/cross-check)
#
# Installs Node.js 22 and the pinned suite as run.sh does (install.sh, the
# same cache), builds mcpconform, lists the server mutants
# (`mcpconform list --mutants`; planted bugs and permitted variants aside),
# then for the reference and for each mutant M, each against a fresh
# `mcpconform serve --transport http [--mutant M]` on loopback:
#   - the suite three times: `conformance server --url U --requirements
#     2025-11-25`, `--requirements 2026-07-28` and `--suite all`, against
#     `serve --page-size 100 --tasks` (the suite reads only the first page of
#     a list, as in run.sh; --tasks serves the extension its tasks-*
#     scenarios test, so that they too pass on the reference and may kill);
#   - `mcpconform server --url U` against `serve` with the default page size
#     (two items a page, as in the self-test); for the reference and each
#     mutant of the MCP server itself (transport any in list --mutants), also
#     `mcpconform server -- mcpconform serve --transport stdio [--mutant M]`:
#     what only shows over stdio (the suite speaks HTTP only).
# Every serve runs with the self-test's short bounds (--slow-bound 1.5s
# --reverse-timeout 1s). The reference runs first, then the mutants,
# CROSSCHECK_PARALLEL at a time.
# crosscheck.mjs then judges: the suite kills a mutant with a scenario that
# fails or warns on it and passes on the reference in the same run;
# mcpconform with a check that is FAIL, WARN or HARDENED on it and PASS on
# the reference over the same transport. Writes to OUT_DIR:
#   cross-check.md, .tsv, .json   the table: mutant → the scenarios and checks that kill it
#   mutants.json                  `mcpconform list --mutants --format json`
#   runs/NAME/                    per target (reference or mutant): official-RUN/ (the
#                                 suite's results), official-RUN.log, mcpconform.json and
#                                 .log (over HTTP), mcpconform-stdio.json and .log (over
#                                 stdio), server-*.log, status.tsv (tool, exit, seconds)
# Exits 0 when the suite kills no mutant that mcpconform leaves alive; 1 when
# it does (cross-check.md marks them "official only"); 2 when something could
# not be installed, built or started, or a target's runs broke off.
#
# Environment:
#   CROSSCHECK_MUTANTS              comma-separated server mutants to run (default: all)
#   CROSSCHECK_PARALLEL             mutants run at once (default 2: each run is busy, not
#                                   waiting, so more only share the same two cores)
#   CROSSCHECK_SCENARIO_TIMEOUT_MS  the suite's --timeout for one scenario (default 10000;
#                                   a scenario takes well under a second on the reference)
#   OFFICIAL_CACHE_DIR, OFFICIAL_NODE, OFFICIAL_START_TIMEOUT, OFFICIAL_STOP_GRACE
#                                   as in run.sh
#   OFFICIAL_SUITE_TIMEOUT          seconds each run of either tool may take (default 300)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out_arg=${1:-$root/reports/cross-check}
mkdir -p "$out_arg"
out=$(cd "$out_arg" && pwd)
cache=${OFFICIAL_CACHE_DIR:-${TMPDIR:-/tmp}/mcpconform-official}
start_timeout=${OFFICIAL_START_TIMEOUT:-10}
stop_grace=${OFFICIAL_STOP_GRACE:-5}
suite_timeout=${OFFICIAL_SUITE_TIMEOUT:-300}
parallel=${CROSSCHECK_PARALLEL:-2}
scenario_ms=${CROSSCHECK_SCENARIO_TIMEOUT_MS:-10000}
[[ $parallel =~ ^[1-9][0-9]*$ ]] || { echo "cross-check.sh: CROSSCHECK_PARALLEL must be 1 or more, got '$parallel'" >&2; exit 2; }
[[ $scenario_ms =~ ^[1-9][0-9]*$ ]] || { echo "cross-check.sh: CROSSCHECK_SCENARIO_TIMEOUT_MS must be a positive number of milliseconds, got '$scenario_ms'" >&2; exit 2; }

name=cross-check.sh
tmp=$(mktemp -d)
# shellcheck source=peers/background.sh
source "$here/../background.sh"
# shellcheck source=peers/official/install.sh
source "$here/install.sh"

# The suite's runs: name and selection. The self-test's bounds for serve.
official_runs=("2025-11-25 --requirements=2025-11-25" "2026-07-28 --requirements=2026-07-28" "all --suite=all")
bounds=(--slow-bound 1.5s --reverse-timeout 1s)

mc=$tmp/mcpconform
(cd "$root" && go build -o "$mc" ./cmd/mcpconform) || die "building mcpconform failed"
"$mc" list --mutants --format json >"$out/mutants.json" || die "mcpconform list --mutants failed"
rm -rf "$out/runs"
mkdir -p "$out/runs"

# run_tool DIR TOOL CMD…: runs CMD, bounded by suite_timeout, with its
# output in DIR/TOOL.log, and appends "TOOL exit seconds" to DIR/status.tsv.
# CMD runs in the background (timeout makes it a process group of its own) so
# that a signal to the job ends it at once (stop_job).
tool_pid=""
run_tool() {
	local dir=$1 tool=$2 start rc=0
	shift 2
	start=$EPOCHREALTIME
	(
		# The server's stdin stays the script's alone to close.
		[[ -z $bg_stdin ]] || exec {bg_stdin}>&-
		exec timeout --kill-after=10 "$suite_timeout" "$@" >"$dir/$tool.log" 2>&1
	) &
	tool_pid=$!
	wait "$tool_pid" || rc=$?
	tool_pid=""
	printf '%s\t%s\t%s\n' "$tool" "$rc" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')" >>"$dir/status.tsv"
}

# stop_job: a job's EXIT trap; ends the tool running, then the server.
# shellcheck disable=SC2317 # run by the EXIT trap
stop_job() {
	if [[ -n $tool_pid ]]; then
		kill -TERM -- "-$tool_pid" 2>/dev/null || true
		wait_gone "$tool_pid" "$stop_grace" || kill -KILL -- "-$tool_pid" 2>/dev/null || true
		wait "$tool_pid" 2>/dev/null || true
	fi
	cleanup
}

# cross NAME TRANSPORT: the suite's runs and mcpconform's against NAME (a
# mutant, or reference), each against a fresh server; mcpconform over stdio
# too when TRANSPORT is any. Runs in a subshell of its own: its scratch
# directory, server and traps are its own.
cross() {
	local target=$1 transport=$2 dir=$out/runs/$1 run run_name selection
	local mutant=()
	case $target in
	reference) ;;
	reference-modern) mutant=(--era modern) ;; # beside which a mutant of that era alone is judged
	*) mutant=(--mutant "$target") ;;
	esac
	mkdir -p "$dir"
	tmp=$(mktemp -d)
	trap stop_job EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	for run in "${official_runs[@]}"; do
		read -r run_name selection <<<"$run"
		start_background "$dir/server-official-$run_name.log" "$mc" serve --transport http --page-size 100 --tasks "${bounds[@]}" "${mutant[@]}"
		run_tool "$dir" "official-$run_name" "$node" "$cli" server --url "$url" "$selection" --timeout "$scenario_ms" -o "$dir/official-$run_name"
		stop_background
		rm -f "$tmp/bg.stdin" # start_background makes it anew
	done
	start_background "$dir/server-mcpconform.log" "$mc" serve --transport http "${bounds[@]}" "${mutant[@]}"
	run_tool "$dir" mcpconform "$mc" server --url "$url" --no-color --json "$dir/mcpconform.json"
	stop_background
	[[ $transport == any ]] || return 0
	run_tool "$dir" mcpconform-stdio "$mc" server --no-color --json "$dir/mcpconform-stdio.json" -- \
		"$mc" serve --transport stdio "${bounds[@]}" "${mutant[@]}"
}

# The jobs: pid → target. reap waits for one to end and notes a failure.
declare -A job_of=()
broken=()
reap() {
	local pid rc=0
	wait -n -p pid || rc=$?
	[[ -n ${pid:-} ]] || return 0
	((rc == 0)) || broken+=("${job_of[$pid]} (exit $rc; see $out/runs/${job_of[$pid]})")
	echo "$name: ${job_of[$pid]} done$( ((rc == 0)) || echo ", exit $rc"); $((++done_count))/$total"
	unset "job_of[$pid]"
}
# shellcheck disable=SC2317 # run by the EXIT trap
stop_jobs() {
	local pid
	for pid in "${!job_of[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	wait || true
}
trap 'stop_jobs; cleanup' EXIT

selected=$("$node" "$here/crosscheck.mjs" select "$out" "${CROSSCHECK_MUTANTS:-}") || die "cannot select the mutants (CROSSCHECK_MUTANTS='${CROSSCHECK_MUTANTS:-}')"
started=$SECONDS
mutant_count=$(wc -l <<<"$selected")
total=$((mutant_count + 1))
done_count=0
echo "$name: @modelcontextprotocol/conformance $CONFORMANCE_VERSION on Node.js $node_version;" \
	"the reference, then $mutant_count server mutants $parallel at a time; results in $out"
(cross reference any) &
job_of[$!]=reference
if grep -q $'\tmodern$' <<<"$selected"; then
	total=$((total + 1))
	(cross reference-modern any) &
	job_of[$!]=reference-modern
fi
while ((${#job_of[@]})); do reap; done
((${#broken[@]} == 0)) || die "the reference's runs broke off: ${broken[*]}"
while IFS=$'\t' read -r target transport _; do
	while ((${#job_of[@]} >= parallel)); do reap; done
	(cross "$target" "$transport") &
	job_of[$!]=$target
done <<<"$selected"
while ((${#job_of[@]})); do reap; done

"$node" "$here/crosscheck.mjs" table "$out" || die "tabulating the runs failed; see $out/runs"
echo "$name: $mutant_count mutants in $((SECONDS - started))s; results in $out"
((${#broken[@]} == 0)) || die "runs broke off: ${broken[*]}"
official_only=$("$node" -p "require(process.argv[1]).totals.official_only" "$out/cross-check.json")
if ((official_only)); then
	echo "$name: the official suite kills $official_only mutant(s) that mcpconform does not (marked official only in $out/cross-check.md)"
	exit 1
fi
