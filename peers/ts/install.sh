# shellcheck shell=bash
# shellcheck disable=SC2154 # name, tmp: set by the sourcing script
# Sourced by peers/certify.sh and peers/certify-client.sh for a TypeScript
# peer: installs Node.js 22 (peers/node.sh) and the packages of this folder's
# package-lock.json (the TypeScript SDK and the npm reference servers, one
# tree for every TypeScript peer) with `npm ci --ignore-scripts` into a
# directory of the cache named by the lock's hash, reused by later runs while
# the lock is unchanged. Sets node, node_version and ts_modules (the
# installed node_modules). Needs die (background.sh).
#
# Environment: OFFICIAL_CACHE_DIR, the cache shared with peers/official
# (default ${TMPDIR:-/tmp}/mcpconform-official); OFFICIAL_NODE, a Node.js
# >= 22 binary to use instead of installing one.
#
# Run as a script (bash peers/ts/install.sh), it installs and exits: .ci/run
# does so before it starts the certifications, which share the cache, side
# by side.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	name=ts/install.sh
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	die() {
		echo "$name: $*" >&2
		exit 2
	}
fi
ts_lock=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${OFFICIAL_CACHE_DIR:-${TMPDIR:-/tmp}/mcpconform-official}
# shellcheck source=peers/node.sh
source "$ts_lock/../node.sh"

if command -v sha256sum >/dev/null; then
	ts_key=$(sha256sum "$ts_lock/package-lock.json" | cut -c1-16)
else
	ts_key=$(shasum -a 256 "$ts_lock/package-lock.json" | cut -c1-16)
fi
[[ -n $ts_key ]] || die "cannot hash $ts_lock/package-lock.json"
ts_dir=$cache/ts-peers-$ts_key
ts_modules=$ts_dir/node_modules
cache_lock "$cache/ts-peers.lock"
if [[ ! -d $ts_dir ]]; then
	# Installed beside it and renamed whole, so that a run never sees half
	# an installation (one that loses a race to rename drops its own).
	echo "$name: installing $ts_lock/package-lock.json into $ts_dir"
	staging=$ts_dir.$$
	rm -rf "$staging"
	mkdir -p "$staging"
	cp "$ts_lock/package.json" "$ts_lock/package-lock.json" "$staging/"
	# npm runs under the installed Node.js 22, whatever node is on PATH.
	(cd "$staging" && PATH=$(dirname "$node"):$PATH npm ci --no-audit --no-fund --ignore-scripts) >"$tmp/npm-ts.log" 2>&1 ||
		die "npm ci of the TypeScript peers failed: $(tail -n 5 "$tmp/npm-ts.log")"
	if [[ -d $ts_dir ]]; then rm -rf "$staging"; else mv "$staging" "$ts_dir"; fi
fi
cache_unlock

# ts_check PACKAGE: dies unless the installed PACKAGE is the version
# package.json pins, and says which it is.
ts_check() {
	local want got
	want=$(sed -n "s|^ *\"$1\": \"\\([^\"]*\\)\".*|\\1|p" "$ts_lock/package.json")
	got=$("$node" -p "require(process.argv[1]).version" "$ts_modules/$1/package.json") ||
		die "cannot read the installed $1's version"
	[[ $got == "$want" ]] || die "$ts_lock/package-lock.json installs $1 $got, but package.json pins ${want:-nothing}; run npm install --package-lock-only in peers/ts"
	echo "$name: $1 $got on Node.js $node_version"
}
