# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # sourced by peers/build.sh, which reads adapter
# The TypeScript SDK's client adapter: main.mjs beside the installed packages.
ts_check @modelcontextprotocol/sdk
ts_program tsclient
adapter=("$node" "$program")
