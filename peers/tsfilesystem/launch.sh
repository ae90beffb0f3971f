# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # sourced by peers/build.sh, which reads server_stdio
# @modelcontextprotocol/server-filesystem, as installed from peers/ts: stdio
# only (the package has no HTTP transport), its one allowed directory a
# scratch directory of the run holding two small files, so that nothing it
# does reaches outside it. mcpconform declares no roots (the run gives no
# --roots), so the server never replaces the directory with a client's roots.
ts_check @modelcontextprotocol/server-filesystem
fsroot=$tmp/fsroot
mkdir -p "$fsroot/docs"
printf 'mcpconform scratch file\n' >"$fsroot/docs/readme.txt"
printf '{"peer":"tsfilesystem"}\n' >"$fsroot/data.json"
server_stdio=("${ts_env[@]}" "$node" "$ts_modules/@modelcontextprotocol/server-filesystem/dist/index.js" "$fsroot")
