#!/usr/bin/env bash
# Writes the layer benchmark's plans (calibrate/bench/layer.cpp) for the GPUs a lent machine may
# have: four DeepSeek-V3 MoE layers (the middle ones) at decode batches of 16, 64 and 256 requests
# per GPU (context 4096) and prefill batches of 2048 and 8192 tokens, each serial (no-overlap),
# with two-batch overlap and with single-batch overlap, EP32 (8 experts per GPU). Output:
# calibrate/layer-plans/<profile>/<phase>-<n>-<strategy>.{plan,yaml}; run-on-gpu.sh runs them.
# tests/test_layer_plans.cpp checks that the shipped files are what this script writes today.
#   scripts/export-layer-plans.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/overlapsim}"
for hw in h100-sxm h200-sxm; do
  dir="calibrate/layer-plans/$hw"
  rm -rf "$dir"
  mkdir -p "$dir"
  for n in 16 64 256; do
    for s in tbo-decode sbo; do
      "$bin" whatif --model deepseek-v3 --hw "$hw" --phase decode --tokens-per-gpu "$n" \
        --context 4096 --ep 32 --strategy "$s" --no-alternatives \
        --export-layers "$dir/decode-$n" > /dev/null
    done
  done
  for n in 2048 8192; do
    for s in tbo-prefill sbo; do
      "$bin" whatif --model deepseek-v3 --hw "$hw" --phase prefill --tokens-per-gpu "$n" \
        --context "$n" --ep 32 --strategy "$s" --no-alternatives \
        --export-layers "$dir/prefill-$n" > /dev/null
    done
  done
done
