#!/usr/bin/env bash
# Certifies the tsserver peer with mcpconform against baseline.yaml; see
# peers/certify.sh. Usage: peers/tsserver/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify.sh" tsserver "${1:-reports}" "${@:2}"
