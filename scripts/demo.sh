#!/usr/bin/env bash
# The main job on shipped defaults (called by ./setup.sh demo).
set -euo pipefail
bin="$1"
cd "$(dirname "$0")/.."
"$bin" run strategies/examples/seed-v4-prefill-attention.yaml --trace build/demo-trace.json
echo "(Perfetto trace written to build/demo-trace.json; open it at ui.perfetto.dev)"
