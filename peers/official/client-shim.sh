#!/usr/bin/env bash
# The reference client under the official conformance suite's client mode.
#
# Usage (by the suite): client-shim.sh MCPCONFORM SERVER_URL
#
# `conformance client --command "bash client-shim.sh MCPCONFORM"` runs this
# with the scenario's server URL appended and MCP_CONFORMANCE_SCENARIO set.
# It runs `MCPCONFORM adapter` under the adapter contract: streamable HTTP to
# SERVER_URL, a call timeout of OFFICIAL_CALL_TIMEOUT_MS (default 10000). The
# adapter picks the era itself (MCPCONFORM_ERA stays unset: it probes with
# server/discover and falls back to initialize), so the suite's
# MCP_CONFORMANCE_PROTOCOL_VERSION is not passed on. It connects, lists the
# tools, calls each and closes; its contract lines go to stdout, which the
# suite keeps with the scenario.
#
# The tool arguments come from a fixtures file (MCPCONFORM_FIXTURES) where a
# scenario needs more than a valid instance of a tool's inputSchema:
# - a scenario with a context (MCP_CONFORMANCE_CONTEXT, e.g.
#   http-custom-headers) passes its toolCalls as they are;
# - json-schema-2020-12-preservation echoes the focal tool's inputSchema to
#   json_schema_echo.
set -euo pipefail
[[ $# -eq 2 ]] || {
	echo "client-shim.sh: usage: client-shim.sh MCPCONFORM SERVER_URL (the suite appends the URL)" >&2
	exit 2
}
fixtures=
case ${MCP_CONFORMANCE_SCENARIO:-} in
json-schema-2020-12-preservation)
	fixtures='{"json_schema_echo":{"schema":{"$inputSchemaOf":"json_schema_2020_12_tool"}}}'
	;;
*)
	if [[ ${MCP_CONFORMANCE_CONTEXT:-} == *'"toolCalls"'* ]]; then
		fixtures=$MCP_CONFORMANCE_CONTEXT
	fi
	;;
esac
case ${MCP_CONFORMANCE_SCENARIO:-} in
auth/*)
	# The reference client authorizes itself on a 401 (OAuth 2.1), the
	# authorization step headless against the suite's mock authorization
	# server. What a client would be given out of band reaches it here: the
	# URL of its client ID metadata document (the one the suite's
	# auth/basic-cimd expects), and pre-registered credentials where the
	# scenario's context has them (auth/pre-registration); the adapter reads
	# client_id and client_secret from the context and ignores the rest.
	export MCPCONFORM_OAUTH_CLIENT_METADATA_URL=https://conformance-test.local/client-metadata.json
	if [[ ${MCP_CONFORMANCE_CONTEXT:-} == *'"client_id"'* ]]; then
		export MCPCONFORM_OAUTH_CLIENT=$MCP_CONFORMANCE_CONTEXT
	fi
	;;
esac
export MCPCONFORM_CASE="official:${MCP_CONFORMANCE_SCENARIO:-unknown}" \
	MCPCONFORM_TRANSPORT=http \
	MCPCONFORM_SERVER_URL=$2 \
	MCPCONFORM_CALL_TIMEOUT_MS=${OFFICIAL_CALL_TIMEOUT_MS:-10000}
if [[ -n $fixtures ]]; then
	# The fixtures reach the adapter through a pipe that exec keeps open.
	MCPCONFORM_FIXTURES=/dev/fd/3 exec "$1" adapter 3< <(printf '%s' "$fixtures")
fi
exec "$1" adapter
