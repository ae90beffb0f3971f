#!/usr/bin/env bash
# Writes an expected-failures baseline skeleton from an mcpconform JSON
# report (--json): one entry for every check whose outcome is FAIL, WARN,
# XFAIL, STALE or HARDENED, under the role the check tests. An entry that
# OLD_BASELINE already has keeps its reason, verbatim; a new one gets a
# "TODO" reason naming the outcome, level, rules and the report's first
# "observed:" line, for you to replace with the evidence. Entries of
# OLD_BASELINE whose check no longer misses (or was not run) are listed at
# the end as comments, so nothing is dropped silently; a STALE entry keeps
# its place, so delete it yourself once the check passes.
#
# Usage: peers/baseline-skeleton.sh REPORT.json [OLD_BASELINE] > baseline.yaml
# Needs jq. Regenerate after a harness change (new checks, profiles) with:
#   mcpconform client --json r.json -- ./adapter
#   peers/baseline-skeleton.sh r.json peers/X/baseline.yaml > new.yaml && diff peers/X/baseline.yaml new.yaml
set -euo pipefail

report=${1:?usage: peers/baseline-skeleton.sh REPORT.json [OLD_BASELINE]}
old=${2:-}
command -v jq >/dev/null || { echo "baseline-skeleton.sh: needs jq (apt-get install jq)" >&2; exit 2; }
[[ -r $report ]] || { echo "baseline-skeleton.sh: cannot read $report" >&2; exit 2; }
[[ -z $old || -r $old ]] || { echo "baseline-skeleton.sh: cannot read $old" >&2; exit 2; }

# old_entry ID: the lines of OLD_BASELINE's entry for ID, from its "- id:"
# line to the line before the next entry or role.
old_entry() {
	[[ -n $old ]] || return 0
	awk -v id="$1" '
		/^[a-z]+:/ { take = 0 }
		/^  - id: / { take = ($3 == id) }
		take { print }
	' "$old"
}

missed='select(.outcome == "FAIL" or .outcome == "WARN" or .outcome == "XFAIL" or .outcome == "STALE" or .outcome == "HARDENED")'
echo "# Skeleton from $(basename "$report") ($(jq -r '.target | tostring' "$report" | head -c 200));"
echo "# replace every TODO reason with the observed behaviour and its evidence."
kept=()
for role in client server; do
	ids=$(jq -r --arg role "$role" ".checks[] | select(.role == \$role) | $missed | .id" "$report" | sort -u)
	[[ -n $ids ]] || continue
	echo "$role:"
	for id in $ids; do
		entry=$(old_entry "$id")
		if [[ -n $entry ]]; then
			printf '%s\n' "$entry"
			kept+=("$id")
			continue
		fi
		jq -r --arg id "$id" '.checks[] | select(.id == $id) |
			"  - id: \(.id)\n    reason: >-\n      TODO(\(.outcome) \(.level) \(.rules | join(",")) \(.transport)) " +
			((.message | split("\n") | map(select(startswith("observed:"))) | first // "no observed line") | .[0:160] | gsub("[\\t ]+"; " "))' "$report" | head -3
	done
done
if [[ -n $old ]]; then
	grep -o '^  - id: .*' "$old" | sed 's/^  - id: //' | while read -r id; do
		[[ " ${kept[*]-} " == *" $id "* ]] || echo "# no longer missed (or not run): $id"
	done
fi
