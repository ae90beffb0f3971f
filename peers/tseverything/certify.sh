#!/usr/bin/env bash
# Certifies the tseverything peer with mcpconform against baseline.yaml; see
# peers/certify.sh. Usage: peers/tseverything/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify.sh" tseverything "${1:-reports}" "${@:2}"
