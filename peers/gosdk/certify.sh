#!/usr/bin/env bash
# Certifies the go-sdk peer with mcpconform against baseline.yaml; see
# peers/certify.sh. Usage: peers/gosdk/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify.sh" gosdk "${1:-reports}" "${@:2}"
