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
ts_lock=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${OFFICIAL_CACHE_DIR:-${TMPDIR:-/tmp}/mcpconform-official}
# shellcheck source=peers/node.sh
source "$ts_lock/../node.sh"

ts_key=$(sha256sum "$ts_lock/package-lock.json" | cut -c1-16) || die "cannot hash $ts_lock/package-lock.json"
ts_dir=$cache/ts-peers-$ts_key
ts_modules=$ts_dir/node_modules
if [[ ! -f $ts_dir/.installed ]]; then
	echo "$name: installing $ts_lock/package-lock.json into $ts_dir"
	rm -rf "$ts_dir"
	mkdir -p "$ts_dir"
	cp "$ts_lock/package.json" "$ts_lock/package-lock.json" "$ts_dir/"
	# npm runs under the installed Node.js 22, whatever node is on PATH.
	(cd "$ts_dir" && PATH=$(dirname "$node"):$PATH npm ci --no-audit --no-fund --ignore-scripts) >"$tmp/npm-ts.log" 2>&1 ||
		die "npm ci of the TypeScript peers failed: $(tail -n 5 "$tmp/npm-ts.log")"
	: >"$ts_dir/.installed"
fi

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
