#!/usr/bin/env bash
# Writes the outputs of a fixed set of commands (run, whatif, --explain, traces, kernel, sweep,
# search, plan, import-trace, validate) into a folder, one file per command, so a refactor can
# show its outputs byte-identical: snapshot before, snapshot after, `diff -r BEFORE AFTER`.
#   scripts/snapshot-outputs.sh BINARY OUT_DIR
# Exit codes are recorded next to each output (an error message is an output too). The output
# folder's path reads OUT and wall-clock times read "T s", so two snapshots compare as equal.
set -uo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "$1")"
out="$2"
mkdir -p "$out"
out="$(realpath "$out")"
trace=/work/shared/data/deepseek-profile-train-h800-ep64.json

snap() {
  local name="$1"
  shift
  "$bin" "$@" > "$out/$name.raw" 2>&1
  echo "$?" > "$out/$name.rc"
  sed -e "s|$out|OUT|g" -e 's/in [0-9.]* s\b/in T s/g' -e 's/[0-9.]* points\/s/N points\/s/g' \
    "$out/$name.raw" > "$out/$name"
  rm "$out/$name.raw"
}

# Every subcommand's help (flags, defaults).
snap help.txt --help
for c in run whatif kernel sweep search plan calibrate validate import-trace describe; do
  snap "help-$c.txt" "$c" --help
done

# Engine programs.
for p in strategies/examples/*.yaml; do
  n="$(basename "$p" .yaml)"
  snap "run-$n.json" run "$p" --json
  snap "run-$n.txt" run "$p"
done

# What-ifs: V3 and V4, prefill and decode, table, JSON, explanation and trace.
w_v3p=(--model deepseek-v3 --hw h800-sxm --phase prefill --tokens-per-gpu 4096 --context 4096 --ep 32)
w_v3d=(--model deepseek-v3 --hw b200 --phase decode --tokens-per-gpu 64 --context 2048 --ep 16)
w_v4d=(--model deepseek-v4-pro --hw h200-sxm --phase decode --tokens-per-gpu 128 --context 4096 --ep 32)
w_v4p=(--model deepseek-v4-flash --hw h800-sxm --phase prefill --tokens-per-gpu 2048 --context 8192 --ep 16)
snap whatif-v3p.json whatif "${w_v3p[@]}" --strategy tbo-prefill --json
snap whatif-v3p.txt whatif "${w_v3p[@]}" --strategy tbo-prefill
snap whatif-v3p-explain.json whatif "${w_v3p[@]}" --strategy tbo-prefill --explain --json
snap whatif-v3p-explain.txt whatif "${w_v3p[@]}" --strategy tbo-prefill --explain
snap whatif-v3d.json whatif "${w_v3d[@]}" --strategy tbo-decode --json
snap whatif-v3d-sbo-explain.txt whatif "${w_v3d[@]}" --strategy sbo --explain
snap whatif-v3d-trace.txt whatif "${w_v3d[@]}" --strategy tbo-decode --trace "$out/whatif-v3d.trace.json"
snap whatif-v4d.json whatif "${w_v4d[@]}" --strategy multistream --json
snap whatif-v4d-explain.json whatif "${w_v4d[@]}" --strategy multistream+tbo-decode --explain --json
snap whatif-v4p-explain.txt whatif "${w_v4p[@]}" --strategy tbo-prefill --explain
snap whatif-v3d-normal-auto-graphs.json whatif "${w_v3d[@]}" --strategy tbo-decode --deepep-mode normal --json
snap whatif-v3p-normal-graphs.txt whatif "${w_v3p[@]}" --strategy tbo-prefill --deepep-mode normal --cuda-graphs on

# Kernels alone.
snap kernel-gemm.json kernel --hw mi355x --gemm 256,7168,2048 --groups 4 --layout masked --json
snap kernel-gemm.txt kernel --hw h800-sxm --gemm 4096,7168,2048
snap kernel-deepep.json kernel --hw h800-sxm --deepep normal --op combine --ep 32 --tokens 4096 --json
snap kernel-deepep-ll.txt kernel --hw b200 --deepep low_latency --op dispatch --ep 16 --tokens 128
snap kernel-attn.json kernel --hw h200-sxm --attention mla_decode --batch 64 --kv-len 4096 --kv-dtype fp8 --json
snap kernel-attn-sparse.txt kernel --hw h800-sxm --attention sparse_prefill --batch 1 --q-len 2048 --kv-len 8192 --attn-topk 2048
for m in rmsnorm rope quantize swiglu residual_add router_topk cumsum kv_write mhc_pre mhc_post gather; do
  snap "kernel-mem-$m.json" kernel --hw h800-sxm --memory "$m" --tokens 4096 --json
done

# A small sweep.
cat > "$out/sweep.yaml" <<'SPEC'
name: snapshot
base: {model: deepseek-v4-pro, hw: h200-sxm, phase: decode, context: 4096, ep: 32}
axes:
  - {field: tokens_per_gpu, values: [16, 128]}
  - {field: deepep_mode, values: [auto, normal]}
strategies: [tbo-decode, multistream]
SPEC
snap sweep.txt sweep "$out/sweep.yaml" --out "$out/sweep.csv" -j 1 -q
cat > "$out/sweep-errors.yaml" <<'SPEC'
name: snapshot-errors
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048, tokens_per_gpu: 32, deepep_mode: normal}
axes:
  - {field: cuda_graphs, values: [on, auto, off]}
  - {field: ep, values: [16, 24]}
strategies: [tbo-decode]
SPEC
snap sweep-errors.txt sweep "$out/sweep-errors.yaml" --out "$out/sweep-errors.csv" -j 1 -q

# Search and plan (small).
snap search-v3d.json search --model deepseek-v3 --hw h800-sxm --phase decode --tokens-per-gpu 32 --context 2048 --ep 16 --json --out "$out/search-best.yaml"
snap search-v3p.txt search --model deepseek-v3 --hw h800-sxm --phase prefill --tokens-per-gpu 2048 --context 4096 --ep 16 --deepep-mode normal
snap search-v3d-out.txt search --model deepseek-v3 --hw h800-sxm --phase decode --tokens-per-gpu 16 --context 2048 --ep 16 --out "$out/search-best-2.yaml"
snap plan.json plan --model deepseek-v3 --hw h800-sxm --gpus 16 --tpot-ms 50 --tokens-per-gpu 32,128 --json --csv "$out/plan.csv"

# Trace import and validation.
for t in fuzz/corpus/trace/tiny.json fuzz/corpus/trace/layers-array.json "$trace"; do
  [ -f "$t" ] || continue
  n="$(basename "$t" .json)"
  snap "import-$n.json" import-trace "$t" --json --program "$out/import-$n.program.yaml"
  snap "import-$n.txt" import-trace "$t"
  snap "validate-$n.json" validate "$t" --hw h800-sxm --json --program "$out/validate-$n.program.yaml"
  snap "validate-$n.txt" validate "$t" --hw h800-sxm
  snap "run-imported-$n.json" run "$out/import-$n.program.yaml" --json
done

# Published data.
for d in deepgemm deepep flashmla; do
  snap "validate-$d.json" validate "/work/shared/data/$d.csv" --hw h800-sxm --json
  snap "validate-$d.txt" validate "/work/shared/data/$d.csv" --hw h800-sxm
done
for f in "$out"/*.json "$out"/*.yaml "$out"/*.csv; do sed -i "s|$out|OUT|g" "$f"; done
# A folder of microbenchmark CSVs (the fuzz corpus's seeds).
mkdir -p "$out/bench"
for f in fuzz/corpus/csv/bench-*.csv; do tail -c +2 "$f" > "$out/bench/$(basename "$f" | sed 's/^bench-//')"; done  # the first byte picks the fuzz target
snap validate-bench.json validate "$out/bench" --hw h800-sxm --json
snap validate-bench.txt validate "$out/bench" --hw h800-sxm
snap calibrate-bench.txt calibrate --base h800-sxm --bench "$out/bench" --out "$out/bench-fitted.yaml"
snap calibrate-published.json calibrate --base h800-sxm --data /work/shared/data/deepgemm.csv --out "$out/published-fitted.yaml" --json
echo "snapshot: $(ls "$out" | wc -l) files in $out"
