#!/usr/bin/env bash
# Certifies the mcp-go peer with mcpconform against baseline.yaml, with the
# flags in mcpconform.flags; see peers/certify.sh.
# Usage: peers/mcpgo/certify.sh [OUT_DIR [MCPCONFORM_FLAG…]]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../certify.sh" mcpgo "${1:-reports}" "${@:2}"
