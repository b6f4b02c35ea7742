#!/usr/bin/env bash
# Regenerates the README table "Where decode TBO starts to pay (DeepSeek-V3, H800, EP32, context
# 4096)" from the binary: one whatif per batch, at SGLang's default --mem-fraction-static and at
# 0.9 for the fits column. Prints the markdown rows. Needs jq.
#   scripts/readme-decode-table.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/overlapsim}"
for n in 8 16 32 64 96 128 192 256; do
  args=(whatif --model deepseek-v3 --hw h800-sxm --phase decode --tokens-per-gpu "$n" --context 4096
        --ep 32 --strategy tbo-decode --json)
  d="$("$bin" "${args[@]}")"
  f9="$("$bin" "${args[@]}" --mem-fraction-static 0.9)"
  jq -r --argjson f9 "$f9" --arg n "$n" '
    def ms: . / 1000 | (. * 10 | round) / 10;
    def fit(j): if j.baseline_fits then "yes" + (if j.baseline_memory_tight then ", tight" else "" end)
                else j.baseline_fits_limited_by end;
    "| \($n) | \(.baseline_us | ms) | \(.overlapped_us | ms) | \(.baseline_us / .overlapped_us * 1000 | round / 1000) | \(.comm_hidden_us | ms) | \(.degradation_us | ms) | \(.degradation[0].cause) | \(fit(.)) (\(.baseline_detail.memory.mem_fraction_static)) / \(fit($f9)) |"' <<< "$d"
done
