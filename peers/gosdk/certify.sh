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

name=certify.sh
tmp=$(mktemp -d)
# shellcheck source=peers/background.sh
source "$peer_dir/../background.sh"

(cd "$peer_dir" && go vet ./...) || die "go vet of the peer module failed"
(cd "$peer_dir" && go build -o "$tmp/gosdk-server" .) || die "building the peer failed"
(cd "$root" && go build -o "$tmp/mcpconform" ./cmd/mcpconform) || die "building mcpconform failed"

start_background "$out/gosdk-peer.log" "$tmp/gosdk-server" --transport http --addr 127.0.0.1:0
echo "certify.sh: the peer listens at $url"

status=0
"$tmp/mcpconform" server --url "$url" \
	--expected-failures "$peer_dir/baseline.yaml" \
	--junit "$out/gosdk-junit.xml" --json "$out/gosdk.json" --markdown "$out/gosdk.md" \
	-- "$tmp/gosdk-server" --transport stdio \
	{bg_stdin}>&- || status=$?
stop_background
exit "$status"
