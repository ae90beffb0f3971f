# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # sourced by peers/build.sh, which reads server_stdio and server_http
# The TypeScript SDK's server peer: main.mjs beside the installed packages,
# with the Go peers' command line.
ts_check @modelcontextprotocol/sdk
ts_program tsserver
server_stdio=("$node" "$program" --transport stdio)
server_http=("$node" "$program" --transport http --addr 127.0.0.1:0)
