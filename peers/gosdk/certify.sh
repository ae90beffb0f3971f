#!/usr/bin/env bash
# Certifies the go-sdk peer with mcpconform: vets and builds the peer, builds
# mcpconform, starts the peer over streamable HTTP, runs `mcpconform server`
# against it with the committed expected-failures baseline, and stops it.
#
# Usage: peers/gosdk/certify.sh [OUT_DIR]      (OUT_DIR defaults to ./reports)
# Writes OUT_DIR/gosdk-junit.xml, gosdk.json, gosdk.md and gosdk-peer.log (the
# peer's stderr). Exits with mcpconform's status (0 pass, 1 a check failed or
# a baseline entry is stale, 2 usage or harness error); 2 as well when the
# peer cannot be vetted, built or started.
#
# Budgets, in seconds: PEER_START_TIMEOUT for the URL line (default 10),
# PEER_STOP_GRACE for each step of the shutdown (default 5).
set -euo pipefail

start_timeout=${PEER_START_TIMEOUT:-10}
stop_grace=${PEER_STOP_GRACE:-5}

peer_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$peer_dir/../.." && pwd)
mkdir -p "${1:-reports}"
out=$(cd "${1:-reports}" && pwd)

die() {
	echo "certify.sh: $*" >&2
	exit 2
}

tmp=$(mktemp -d)
peer_pid=""
stdin_fd=""

# alive PID: the process has not exited (bash reaps its children as they end).
alive() { kill -0 "$1" 2>/dev/null; }

# wait_gone PID SECONDS: wait at most SECONDS for PID to exit.
wait_gone() {
	local deadline=$((SECONDS + $2))
	while alive "$1" && ((SECONDS < deadline)); do sleep 0.1; done
	! alive "$1"
}

# stop_peer: EOF on the peer's stdin, then SIGTERM to its process group,
# then SIGKILL; each step waits at most stop_grace.
stop_peer() {
	[[ -n $peer_pid ]] || return 0
	if [[ -n $stdin_fd ]]; then
		exec {stdin_fd}>&-
		stdin_fd=""
	fi
	if ! wait_gone "$peer_pid" "$stop_grace"; then
		echo "certify.sh: the peer ignored EOF on stdin for ${stop_grace}s; sending SIGTERM" >&2
		kill -TERM -- "-$peer_pid" 2>/dev/null || true
		if ! wait_gone "$peer_pid" "$stop_grace"; then
			echo "certify.sh: the peer ignored SIGTERM for ${stop_grace}s; sending SIGKILL" >&2
			kill -KILL -- "-$peer_pid" 2>/dev/null || true
		fi
	fi
	wait "$peer_pid" 2>/dev/null || true
	peer_pid=""
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	stop_peer
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

(cd "$peer_dir" && go vet ./...) || die "go vet of the peer module failed"
(cd "$peer_dir" && go build -o "$tmp/gosdk-server" .) || die "building the peer failed"
(cd "$root" && go build -o "$tmp/mcpconform" ./cmd/mcpconform) || die "building mcpconform failed"

# The peer's stdin is a FIFO this script alone holds open for writing:
# closing it (or this script dying) is the peer's EOF.
mkfifo "$tmp/peer.stdin"
: >"$tmp/peer.out"
exec {stdin_fd}<>"$tmp/peer.stdin"
set -m # the peer gets its own process group, which stop_peer signals
"$tmp/gosdk-server" --transport http --addr 127.0.0.1:0 \
	<"$tmp/peer.stdin" >"$tmp/peer.out" 2>"$out/gosdk-peer.log" {stdin_fd}>&- &
peer_pid=$!
set +m

deadline=$((SECONDS + start_timeout))
while :; do
	url=$(sed -n 's/^{"url":"\(http:\/\/[^"]*\)"}$/\1/p' "$tmp/peer.out")
	[[ -z $url ]] || break
	alive "$peer_pid" || die "the peer exited before printing its URL; see $out/gosdk-peer.log"
	((SECONDS < deadline)) || die "no URL line from the peer within ${start_timeout}s (stdout: $(head -c 200 "$tmp/peer.out"))"
	sleep 0.1
done
echo "certify.sh: the peer listens at $url"

status=0
"$tmp/mcpconform" server --url "$url" \
	--expected-failures "$peer_dir/baseline.yaml" \
	--junit "$out/gosdk-junit.xml" --json "$out/gosdk.json" --markdown "$out/gosdk.md" \
	-- "$tmp/gosdk-server" --transport stdio \
	{stdin_fd}>&- || status=$?
stop_peer
exit "$status"
