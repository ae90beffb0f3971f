# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # sourced by peers/build.sh, which reads server_stdio
# @modelcontextprotocol/server-memory, as installed from peers/ts: stdio only
# (the package has no HTTP transport), its knowledge graph in a file of the
# run's scratch directory (MEMORY_FILE_PATH), never the package's own.
ts_check @modelcontextprotocol/server-memory
mkdir -p "$tmp/memory"
server_stdio=("${ts_env[@]}" "MEMORY_FILE_PATH=$tmp/memory/memory.jsonl"
	"$node" "$ts_modules/@modelcontextprotocol/server-memory/dist/index.js")
