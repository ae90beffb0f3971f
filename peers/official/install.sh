# shellcheck shell=bash
# shellcheck disable=SC2154 # name, here, cache, tmp: set by the sourcing script
# Sourced by run.sh, run-client.sh and compare-everything.sh: installs Node.js
# (peers/node.sh) and the pinned suite into the cache (reused by later runs) and sets node (the
# Node.js binary), node_version, CONFORMANCE_VERSION, suite_dir (its
# node_modules' parent) and cli (the suite's entry point). The packages are
# those of package.json and package-lock.json in suite_lock (default: this
# folder), installed into $cache/${suite_name:-conformance}-$CONFORMANCE_VERSION.
# Needs die (background.sh).
#
# The pins live in one place each: Node.js's in peers/node.sh (which installs
# it), the suite's version in package.json (the whole tree in
# package-lock.json beside it).
# shellcheck source=peers/node.sh
source "$(dirname "${BASH_SOURCE[0]}")/../node.sh"

# --- the suite, installed from the committed lockfile -----------------------
lock_dir=${suite_lock:-$here}
CONFORMANCE_VERSION=$(sed -n 's/^ *"@modelcontextprotocol\/conformance": "\([^"]*\)".*/\1/p' "$lock_dir/package.json")
[[ -n $CONFORMANCE_VERSION ]] || die "$lock_dir/package.json names no version of @modelcontextprotocol/conformance"
suite_dir=$cache/${suite_name:-conformance}-$CONFORMANCE_VERSION
cli=$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
if ! cmp -s "$lock_dir/package-lock.json" "$suite_dir/package-lock.json" || [[ ! -f $cli ]]; then
	echo "$name: installing $lock_dir/package-lock.json (@modelcontextprotocol/conformance@$CONFORMANCE_VERSION) into $suite_dir"
	rm -rf "$suite_dir"
	mkdir -p "$suite_dir"
	cp "$lock_dir/package.json" "$lock_dir/package-lock.json" "$suite_dir/"
	(cd "$suite_dir" && npm ci --no-audit --no-fund --ignore-scripts) >"$tmp/npm-suite.log" 2>&1 ||
		die "npm ci of the suite failed: $(tail -n 5 "$tmp/npm-suite.log")"
fi
installed=$("$node" -p "require(process.argv[1]).version" "$suite_dir/node_modules/@modelcontextprotocol/conformance/package.json") ||
	die "cannot read the installed suite's version"
[[ $installed == "$CONFORMANCE_VERSION" ]] ||
	die "$lock_dir/package-lock.json installs @modelcontextprotocol/conformance $installed, but $lock_dir/package.json pins $CONFORMANCE_VERSION; run npm install --package-lock-only there"
