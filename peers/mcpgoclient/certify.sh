#!/usr/bin/env bash
# Certifies the mcpgo client adapter with mcpconform against baseline.yaml; see
# peers/certify-client.sh. Usage: peers/mcpgoclient/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify-client.sh" mcpgoclient "${1:-reports}" "${@:2}"
