#!/usr/bin/env bash
# Certifies the tsmemory peer with mcpconform against baseline.yaml; see
# peers/certify.sh. Usage: peers/tsmemory/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify.sh" tsmemory "${1:-reports}" "${@:2}"
