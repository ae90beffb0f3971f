#!/usr/bin/env bash
# Certifies one peer server with mcpconform: makes the peer ready and builds
# mcpconform (peers/build.sh: a Go peer, the module in peers/PEER, vetted and
# built; a TypeScript one installed and launched as its launch.sh says),
# starts the peer over streamable HTTP, runs
# `mcpconform server --url URL -- PEER-server --transport stdio` against it
# with the peer's committed expected-failures baseline
# (peers/PEER/baseline.yaml), and stops it; a peer that serves stdio alone
# is run as `mcpconform server -- …`. peers/PEER/certify.sh calls this.
#
# Usage: peers/certify.sh PEER [OUT_DIR [MCPCONFORM_FLAG…]]
# (OUT_DIR defaults to ./reports). The peer's own mcpconform flags, if any,
# are the lines of peers/PEER/mcpconform.flags (# starts a comment); the
# flags given here follow them. Writes OUT_DIR/PEER-junit.xml, PEER.json,
# PEER.md and PEER-peer.log (the peer's stderr). Exits with mcpconform's
# status (0 pass, 1 a check failed or a baseline entry is stale, 2 usage or
# harness error); 2 as well when the peer cannot be vetted, built, installed
# or started.
#
# Budgets, in seconds: PEER_START_TIMEOUT for the URL line (default 10),
# PEER_STOP_GRACE for each step of the shutdown (default 5).
set -euo pipefail

start_timeout=${PEER_START_TIMEOUT:-10}
stop_grace=${PEER_STOP_GRACE:-5}

peers=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$peers/.." && pwd)
usage() {
	echo "certify.sh: $*; usage: peers/certify.sh PEER [OUT_DIR [MCPCONFORM_FLAG…]] with PEER one of: $(peers_of server)" >&2
	exit 2
}
# shellcheck source=peers/peerargs.sh
source "$peers/peerargs.sh"
peer_args server "$@"

name=certify.sh
tmp=$(mktemp -d)
# shellcheck source=peers/background.sh
source "$peers/background.sh"

# shellcheck source=peers/build.sh
source "$peers/build.sh"
build_peer server

start=$SECONDS
target=()
if ((${#server_http[@]} > 0)); then
	start_background "$out/$peer-peer.log" "${server_http[@]}"
	url=$url$url_path
	echo "certify.sh: the $peer peer listens at $url"
	target=(--url "$url")
else
	exec {bg_stdin}</dev/null # no background server: nothing for mcpconform to leave open
fi

status=0
"$tmp/mcpconform" server ${target[@]+"${target[@]}"} \
	--expected-failures "$peer_dir/baseline.yaml" \
	--junit "$out/$peer-junit.xml" --json "$out/$peer.json" --markdown "$out/$peer.md" \
	${extra[@]+"${extra[@]}"} \
	-- "${server_stdio[@]}" \
	{bg_stdin}>&- || status=$?
stop_background
echo "certify.sh: $peer certified in $((SECONDS - start))s, mcpconform exited $status"
exit "$status"
