#!/usr/bin/env bash
# The same inputs must give byte-identical JSON, CSV and traces from two differently built
# binaries (release against the sanitizer build): .ci/run calls this after both test passes.
set -euo pipefail
cd "$(dirname "$0")/.."
a="$1"
b="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/sweep.yaml" <<'SPEC'
name: determinism
base: {model: deepseek-v4-pro, hw: h200-sxm, phase: decode, context: 4096, ep: 32}
axes:
  - {field: tokens_per_gpu, values: [16, 128]}
strategies: [tbo-decode, multistream]
SPEC
run_both() {
  local name="$1"
  shift
  "$a" "$@" > "$work/$name.a" 2>&1
  "$b" "$@" > "$work/$name.b" 2>&1
  cmp -s "$work/$name.a" "$work/$name.b" || { echo "determinism: '$name' differs between $a and $b"; diff "$work/$name.a" "$work/$name.b" | head -20; exit 1; }
}
run_both run-json run strategies/examples/gemm-beside-memory-bound.yaml --json
run_both whatif-json whatif --model deepseek-v3 --hw h800-sxm --phase prefill --tokens-per-gpu 4096 --context 4096 --ep 32 --strategy tbo-prefill --json
run_both kernel-json kernel --hw mi355x --gemm 256,7168,2048 --groups 4 --layout masked --json
"$a" whatif --model deepseek-v3 --hw b200 --phase decode --tokens-per-gpu 64 --context 2048 --ep 16 --strategy tbo-decode --trace "$work/t.a" > /dev/null
"$b" whatif --model deepseek-v3 --hw b200 --phase decode --tokens-per-gpu 64 --context 2048 --ep 16 --strategy tbo-decode --trace "$work/t.b" > /dev/null
cmp -s "$work/t.a" "$work/t.b" || { echo "determinism: traces differ"; exit 1; }
"$a" sweep "$work/sweep.yaml" --out "$work/s.a" -j 1 -q > /dev/null
"$b" sweep "$work/sweep.yaml" --out "$work/s.b" -j 2 -q > /dev/null
cmp -s "$work/s.a" "$work/s.b" || { echo "determinism: sweep CSVs differ"; exit 1; }
echo "determinism: release and sanitizer builds agree byte for byte (run, whatif, kernel, trace, sweep)"
