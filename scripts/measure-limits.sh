#!/usr/bin/env bash
# Memory limits of issue 7, measured (not a test: it takes minutes and a few GB of disk):
#  1. a sweep of 1,000,000 points runs in memory that does not grow with the points done
#     (resident set sampled while it runs; the full sweep takes hours, the trend is what counts);
#  2. merging shards of a 1,000,000-point sweep streams (peak resident set);
#  3. importing a 1 GB Kineto trace streams (peak resident set).
# Usage: scripts/measure-limits.sh [build/overlapsim] [seconds for the sweep, default 90]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/overlapsim}"
seconds="${2:-90}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== 1. sweep of 1,000,000 points (-j2, ${seconds} s)"
cat > "$work/million.yaml" <<'SPEC'
name: million
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, ep: 32}
axes:
  - {field: context, range: {from: 1000, to: 100900, steps: 1000}}
  - {field: tokens_per_gpu, range: {from: 1, to: 1000, steps: 1000}}
strategies: [tbo-decode]
SPEC
"$bin" sweep "$work/million.yaml" --out "$work/million.csv" -j 2 -q &
pid=$!
for ((t = 10; t <= seconds; t += 10)); do
  sleep 10
  rows=$(($(grep -c -v '^#' "$work/million.csv") - 1))
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  echo "  t=${t}s rows=${rows} rss=${rss} kB peak=${hwm} kB"
done
kill "$pid"; wait "$pid" 2>/dev/null || true

echo "== 2. merge of two 500,000-point shards"
# The shards as `sweep --shard i/2` would write them: the sweep's provenance with the shard's
# line, then every point of the shard with its own inputs (merge checks each row against the
# spec), the outputs copied from the first row computed above.
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
lines = open(f"{work}/million.csv").read().split("\n")
prov = [l for l in lines if l.startswith("#")]
header = lines[len(prov)]
first = lines[len(prov) + 1].split(",")
outputs = ",".join(first[12:])  # strategy onward (point + 11 input columns before it)
for shard in (0, 1):
    with open(f"{work}/part{shard}.csv", "w") as f:
        for l in prov:
            if l.startswith("# shard:"):
                l = f"# shard: {shard}/2"
            elif l.startswith("# points:"):
                l = "# points: 500000 of 1000000"
            f.write(l + "\n")
        f.write(header + "\n")
        for i in range(shard, 1_000_000, 2):
            context, tokens = 1000 + 100 * (i // 1000), 1 + i % 1000
            f.write(f"{i},deepseek-v3,h800-sxm,decode,{tokens},{context},32,8,1.15,auto,auto,1,"
                    f"{outputs}\n")
PY
ls -l "$work"/part*.csv | awk '{print "  " $5 " bytes " $9}'
/usr/bin/time -f "  merge: %e s, peak RSS %M kB" "$bin" merge "$work/merged.csv" "$work/part0.csv" "$work/part1.csv"
echo "  merged rows: $(grep -c -v '^#' "$work/merged.csv") (with the header)"

echo "== 3. import of a ~1 GB trace"
python3 - "$work/big.json" <<'PY'
import sys
# Synthetic Kineto trace: many CPU-side events (what makes real traces big) and a few thousand
# kernels on two streams with launch correlations.
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents":[\n')
    first = True
    def put(s):
        global first
        f.write(("" if first else ",\n") + s)
        first = False
    ts = 0
    size = 0
    corr = 0
    while size < 1_000_000_000:
        for _ in range(1000):
            s = '{"ph":"X","cat":"cpu_op","name":"aten::some_operator_with_a_long_name","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"External id":%d,"Sequence number":%d}}' % (ts, ts, ts)
            put(s); size += len(s); ts += 4
        corr += 1
        put('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"correlation":%d}}' % (ts, corr))
        put('{"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":%d,"ts":%d,"dur":50,"args":{"correlation":%d,"grid":[132,1,1],"block":[384,1,1],"stream":%d}}' % (7 + 20 * (corr % 2), ts + 10, corr, 7 + 20 * (corr % 2)))
    f.write("\n]}\n")
PY
ls -l "$work/big.json" | awk '{print "  " $5 " bytes"}'
/usr/bin/time -f "  import-trace: %e s, peak RSS %M kB" "$bin" import-trace "$work/big.json" --json > /dev/null
