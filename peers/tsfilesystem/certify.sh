#!/usr/bin/env bash
# Certifies the tsfilesystem peer with mcpconform against baseline.yaml; see
# peers/certify.sh. Usage: peers/tsfilesystem/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify.sh" tsfilesystem "${1:-reports}" "${@:2}"
