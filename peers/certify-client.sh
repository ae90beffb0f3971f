#!/usr/bin/env bash
# Certifies one client peer with mcpconform: makes the adapter ready and
# builds mcpconform (peers/build.sh: a Go adapter vetted and built with
# peers/adapterhost vetted and tested; a TypeScript one installed and launched
# as its launch.sh says), and
# runs `mcpconform client -- PEER-adapter` under --profile spec and then
# --profile hardened against the peer's committed expected-failures baseline
# (peers/PEER/baseline.yaml, a client: list).
# mcpconform runs the adapter once per check, over stdio and streamable
# HTTP, against its fake servers; nothing runs in the background.
# peers/PEER/certify.sh calls this.
#
# Usage: peers/certify-client.sh PEER [OUT_DIR [MCPCONFORM_FLAG…]]
# (OUT_DIR defaults to ./reports). The peer's own mcpconform flags, if any,
# are the lines of peers/PEER/mcpconform.flags (# starts a comment); the
# flags given here follow them. Writes OUT_DIR/PEER-junit.xml, PEER.json
# and PEER.md (spec profile) and the same as PEER-hardened-*. Exits with the
# worse of mcpconform's two statuses (0 pass, 1 a check failed or
# a baseline entry is stale, 2 usage or harness error); 2 as well when the
# adapter cannot be vetted, built or installed.
set -euo pipefail

peers=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$peers/.." && pwd)
usage() {
	echo "certify-client.sh: $*; usage: peers/certify-client.sh PEER [OUT_DIR [MCPCONFORM_FLAG…]] with PEER one of: $(peers_of client)" >&2
	exit 2
}
# shellcheck source=peers/peerargs.sh
source "$peers/peerargs.sh"
peer_args client "$@"

die() {
	echo "certify-client.sh: $*" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

name=certify-client.sh
# shellcheck source=peers/build.sh
source "$peers/build.sh"
build_peer client

# Both profiles, against the one baseline: under spec a listed hardened
# miss stays HARDENED (it neither fails nor goes stale); under hardened it is
# an expected failure like any other.
status=0
for profile in spec hardened; do
	report=$peer
	[[ $profile == spec ]] || report=$peer-$profile
	start=$SECONDS
	s=0
	"$tmp/mcpconform" client --profile "$profile" \
		--expected-failures "$peer_dir/baseline.yaml" \
		--junit "$out/$report-junit.xml" --json "$out/$report.json" --markdown "$out/$report.md" \
		${extra[@]+"${extra[@]}"} \
		-- "${adapter[@]}" </dev/null || s=$?
	echo "certify-client.sh: $peer certified under --profile $profile in $((SECONDS - start))s, mcpconform exited $s"
	((s > status)) && status=$s
done
exit "$status"
