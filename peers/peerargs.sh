# Sourced by peers/certify.sh and peers/certify-client.sh: reads their
# arguments PEER [OUT_DIR [MCPCONFORM_FLAG…]] for a peer of ROLE (server or
# client) and sets peer, peer_dir, out (created) and extra (the flags of
# peers/PEER/mcpconform.flags, # starting a comment, then the flags given).
# Needs peers (the peers/ directory) and usage (prints and exits 2).
#
# Usage: peer_args ROLE "$@"
peer_args() {
	local role=$1 other=client script=peers/certify-client.sh
	shift
	[[ $role == client ]] && other=server script=peers/certify.sh
	peer=${1:-}
	[[ $peer =~ ^[a-z0-9_-]+$ ]] || usage "PEER ${peer:-(none)} is not a peer's directory name"
	peer_dir=$peers/$peer
	[[ (-f $peer_dir/go.mod || -f $peer_dir/launch.sh) && -f $peer_dir/baseline.yaml ]] ||
		usage "no peer $peer: $peer_dir needs baseline.yaml and go.mod (a Go peer) or launch.sh (a TypeScript one)"
	grep -q "^$role:" "$peer_dir/baseline.yaml" || usage "$peer is not a $role peer: its baseline.yaml has no $role: list ($other peers go through $script)"
	mkdir -p "${2:-reports}" || usage "cannot create the output directory ${2:-reports}"
	out=$(cd "${2:-reports}" && pwd)
	extra=()
	if [[ -f $peer_dir/mcpconform.flags ]]; then
		local line
		while read -r line; do
			line=${line%%#*}
			# shellcheck disable=SC2206 # a line holds flags separated by spaces
			[[ -z ${line// /} ]] || extra+=($line)
		done <"$peer_dir/mcpconform.flags"
	fi
	extra+=("${@:3}")
}

# peers_of ROLE lists the peers whose baseline has a ROLE: list.
peers_of() {
	local b
	for b in "$peers"/*/baseline.yaml; do
		grep -q "^$1:" "$b" && basename "$(dirname "$b")"
	done | tr '\n' ' '
}
