# shellcheck shell=bash
# shellcheck disable=SC2154 # peers, peer, peer_dir, root, tmp, name: set by the sourcing script
# Sourced by peers/certify.sh and peers/certify-client.sh: build_peer ROLE
# makes the peer (peers/PEER) ready to run and builds mcpconform into
# $tmp/mcpconform. It sets, for ROLE server, server_stdio (the argv that
# serves one session over stdio), server_http (the argv of a background
# server that prints {"url":"…"} once it listens; empty: stdio only) and
# url_path (appended to the URL it prints); for ROLE client, adapter (the
# adapter's argv). Flags a peer adds to its mcpconform run go to extra.
# Needs die.
#
# A Go peer (go.mod) is vetted and built: a server takes the peers'
# command line (peers/peerhost), a client is an adapterhost program, or an
# SDK's conformance client when its go.mod pins one as its tool (run with
# --conformance-client). Any
# other peer is a TypeScript one: peers/ts/install.sh installs Node.js and
# the TypeScript packages, and the peer's launch.sh, sourced, sets the argv
# (ts_program copies a peer's program beside the installed node_modules).
build_peer() {
	server_stdio=() server_http=() adapter=() url_path=""
	local tool
	tool=$(sed -n 's/^tool //p' "$peer_dir/go.mod" 2>/dev/null || true)
	if [[ $1 == client && -n $tool ]]; then
		# An SDK's own conformance client, pinned as its module's tool:
		# built as it is and certified through --conformance-client.
		(cd "$peer_dir" && go build -o "$tmp/$peer-$1" "$tool") || die "building $tool for the $peer peer failed"
		adapter=("$tmp/$peer-$1")
		extra=(--conformance-client ${extra[@]+"${extra[@]}"})
	elif [[ -f $peer_dir/go.mod ]]; then
		if [[ $1 == client ]]; then
			(cd "$peers/adapterhost" && go vet ./... && go test ./...) || die "go vet or go test of peers/adapterhost failed"
		else
			(cd "$peers/peerhost" && go vet ./...) || die "go vet of peers/peerhost failed"
		fi
		(cd "$peer_dir" && go vet ./...) || die "go vet of the $peer module failed"
		(cd "$peer_dir" && go build -o "$tmp/$peer-$1" .) || die "building the $peer peer failed"
		adapter=("$tmp/$peer-$1")
		server_stdio=("$tmp/$peer-$1" --transport stdio)
		server_http=("$tmp/$peer-$1" --transport http --addr 127.0.0.1:0)
	else
		# shellcheck source=peers/ts/install.sh
		source "$peers/ts/install.sh"
		# The environment a TypeScript server gets: none of the caller's but
		# PATH, with HOME in the scratch directory, so that a tool that reports
		# its environment (server-everything's get-env) reports nothing secret.
		mkdir -p "$tmp/home"
		ts_env=(env -i "PATH=$PATH" "HOME=$tmp/home")
		# A Node.js server imports its packages before it listens: on a busy
		# machine that took more than the 10 s a Go peer gets for its URL line.
		[[ -n ${PEER_START_TIMEOUT:-} ]] || start_timeout=30
		# shellcheck source=/dev/null # the peer's own
		source "$peer_dir/launch.sh"
	fi
	(cd "$root" && go build -o "$tmp/mcpconform" ./cmd/mcpconform) || die "building mcpconform failed"
}

# ts_program DIR: copies the .mjs files of peers/DIR to $tmp/ts/DIR, beside a
# link to the installed node_modules (where Node.js resolves their imports),
# checks them with node --check and sets program to the copy of main.mjs.
ts_program() {
	mkdir -p "$tmp/ts/$1"
	ln -sfn "$ts_modules" "$tmp/ts/node_modules"
	cp "$peers/$1"/*.mjs "$tmp/ts/$1/"
	local f
	for f in "$tmp/ts/$1"/*.mjs; do
		"$node" --check "$f" || die "node --check of peers/$1/$(basename "$f") failed"
	done
	program=$tmp/ts/$1/main.mjs
}
