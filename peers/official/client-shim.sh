#!/usr/bin/env bash
# The reference client under the official conformance suite's client mode.
#
# Usage (by the suite): client-shim.sh MCPCONFORM SERVER_URL
#
# `conformance client --command "bash client-shim.sh MCPCONFORM"` runs this
# with the scenario's server URL appended and MCP_CONFORMANCE_SCENARIO set.
# It runs `MCPCONFORM adapter` under the adapter contract: streamable HTTP to
# SERVER_URL, a call timeout of OFFICIAL_CALL_TIMEOUT_MS (default 10000). The
# adapter connects, lists the tools, calls each with {} and closes; its
# contract lines go to stdout, which the suite keeps with the scenario.
set -euo pipefail
[[ $# -eq 2 ]] || {
	echo "client-shim.sh: usage: client-shim.sh MCPCONFORM SERVER_URL (the suite appends the URL)" >&2
	exit 2
}
MCPCONFORM_CASE="official:${MCP_CONFORMANCE_SCENARIO:-unknown}" \
	MCPCONFORM_TRANSPORT=http \
	MCPCONFORM_SERVER_URL=$2 \
	MCPCONFORM_CALL_TIMEOUT_MS=${OFFICIAL_CALL_TIMEOUT_MS:-10000} \
	exec "$1" adapter
