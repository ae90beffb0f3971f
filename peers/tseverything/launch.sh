# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # sourced by peers/build.sh, which reads server_stdio, server_http, url_path and extra
# @modelcontextprotocol/server-everything, as installed from peers/ts: over
# stdio (`index.js stdio`) and streamable HTTP (`index.js streamableHttp`),
# kept on loopback and announcing its URL by peers/official/everything/
# loopback.mjs (preloaded), as compare-everything.sh runs it; PORT=0 picks a
# free port. Its environment is ts_env's (get-env reports it), and
# gzip-file-as-resource may fetch from 127.0.0.1 alone (it is not read-only,
# so the safe-calling default never calls it anyway). The fixtures name its
# progress and slow tool (trigger-long-running-operation only sleeps).
ts_check @modelcontextprotocol/server-everything
everything=$ts_modules/@modelcontextprotocol/server-everything/dist/index.js
server_stdio=("${ts_env[@]}" GZIP_ALLOWED_DOMAINS=127.0.0.1 "$node" "$everything" stdio)
server_http=("${ts_env[@]}" PORT=0 GZIP_ALLOWED_DOMAINS=127.0.0.1
	"$node" --import "$peers/official/everything/loopback.mjs" "$everything" streamableHttp)
url_path=/mcp
extra=(--fixtures "$peers/official/everything/fixtures.yaml" ${extra[@]+"${extra[@]}"})
