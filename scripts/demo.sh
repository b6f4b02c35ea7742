#!/usr/bin/env bash
# The main job on shipped defaults (called by ./setup.sh demo): does two-batch overlap pay for
# DeepSeek-V3 decode on H800 with 64 requests per GPU over EP32?
set -euo pipefail
bin="$1"
cd "$(dirname "$0")/.."
"$bin" whatif --model deepseek-v3 --hw h800-sxm --phase decode --tokens-per-gpu 64 --context 4096 --ep 32 \
  --strategy tbo-decode --trace build/demo-trace.json
echo
echo "(Perfetto trace of both runs written to build/demo-trace.json; open it at ui.perfetto.dev)"
