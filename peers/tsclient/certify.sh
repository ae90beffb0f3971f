#!/usr/bin/env bash
# Certifies the tsclient client adapter with mcpconform against baseline.yaml; see
# peers/certify-client.sh. Usage: peers/tsclient/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify-client.sh" tsclient "${1:-reports}" "${@:2}"
