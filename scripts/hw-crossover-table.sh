#!/usr/bin/env bash
# Regenerates the README table "Where decode overlap starts to pay on H20 and GB200": runs the two
# shipped sweeps (strategies/sweeps/v3-decode-h20-ep16-mtp.yaml, v3-decode-gb200-ep48.yaml) with
# their crossover reports and prints the markdown, one table per sweep. Run from anywhere after
# building; results and charts go to build/hw-crossover/ (or $1).
#   scripts/hw-crossover-table.sh            # prints the tables
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${OVERLAPSIM:-build/overlapsim}"
out="${1:-build/hw-crossover}"
mkdir -p "$out"

table() {  # $1 spec name, $2 title
  local spec="$1" csv="$out/$1.csv"
  "$bin" sweep "strategies/sweeps/$spec.yaml" --out "$csv" -q --report "$out/$spec" >/dev/null
  echo "#### $2"
  echo
  # Columns by name from the header; every column read here comes before the (quoted) verdict.
  grep -v '^#' "$csv" | awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
      key = $col["model"] SUBSEP $col["tokens_per_gpu"]
      if (!(key in base)) { order[++n] = key; base[key] = $col["baseline_us"] / 1000;
                            mem[key] = $col["baseline_memory_gb"]; fits[key] = $col["baseline_fits"] }
      s = $col["speedup"]; speed[key, $col["strategy"]] = (s == "" ? "-" : sprintf("%.3f", s))
    }
    END {
      print "| model | requests/GPU | no-overlap ms | tbo-decode speedup | sbo speedup | HBM GB (no-overlap) |"
      print "|---|---|---|---|---|---|"
      for (k = 1; k <= n; k++) {
        split(order[k], p, SUBSEP)
        printf "| %s | %s | %.1f | %s | %s | %.1f%s |\n", p[1], p[2], base[order[k]],
               speed[order[k], "tbo-decode"], speed[order[k], "sbo"], mem[order[k]],
               fits[order[k]] == "true" ? "" : " (does not fit)"
      }
    }'
  echo
  # Where each strategy starts to pay (overlapsim report: first upward crossing of speedup 1).
  grep -v '^#' "$out/$spec/crossover.csv" | awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
      grp = ""
      for (c in col) if (c != "strategy" && c != "status" && c !~ /^crossover_/ && c !~ /_speedup$/)
        grp = grp (grp == "" ? "" : ", ") $col[c]
      where = $col["status"] == "crosses" ? sprintf("pays from %.0f requests/GPU", $col["crossover_tokens_per_gpu"]) \
              : $col["status"] == "never" ? "never pays in range" : "pays at every point"
      printf "- %s%s: %s (speedup %s-%s)\n", $col["strategy"], grp == "" ? "" : " (" grp ")", where,
             $col["min_speedup"], $col["max_speedup"]
    }'
  echo
}

table v3-decode-h20-ep16-mtp "DeepSeek-V3 decode on H20: EP16 (two HGX nodes), MTP (2 query tokens per request), context 4096"
table v3-decode-gb200-ep48 "DeepSeek-V3 decode on GB200 NVL72: EP48 in one NVLink domain, 32 redundant experts, context 2000"
echo "(scripts/hw-crossover-table.sh, $(date -u +%Y-%m-%d), overlapsim $("$bin" --version | awk '{print $NF}'))"
