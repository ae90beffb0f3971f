#!/usr/bin/env bash
# Certifies the go-sdk's own conformance client (conformance/everything-client,
# pinned in go.mod) with mcpconform client --conformance-client against
# baseline.yaml; see peers/certify-client.sh.
# Usage: peers/gosdkconfclient/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify-client.sh" gosdkconfclient "${1:-reports}" "${@:2}"
