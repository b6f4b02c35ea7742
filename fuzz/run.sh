#!/usr/bin/env bash
# Builds overlapsim's libFuzzer targets (clang, AddressSanitizer + UndefinedBehaviorSanitizer, in
# build-fuzz/) and runs each for a fixed number of executions, two at a time by default.
#
#   fuzz/run.sh [EXECUTIONS] [TARGET...]      (default: 1000000 executions, every target)
#   FUZZ_JOBS=N fuzz/run.sh ...               (targets run at once; default 2)
#
# Targets: program hw_profile model_config strategy sweep_spec csv trace. Each starts from its
# seed corpus (fuzz/corpus/<target>/ and the shipped folders in fuzz/seeds.txt) plus what earlier runs found (build-fuzz/fuzz-out/corpus/),
# with fuzz/dict/. A crash, sanitizer report, timeout (10 s) or memory blow-up (an allocation over
# 2 GiB, or 4 GiB in all) stops the target and leaves its input in
# build-fuzz/fuzz-out/<target>-crash-*; the summary lists them.
# Needs clang and libclang-rt-14-dev: scripts/install-deps.sh --with-fuzz. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-1000000}
[[ $# -gt 0 ]] && shift
all=(program hw_profile model_config strategy sweep_spec csv trace)
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=("${all[@]}")
jobs=${FUZZ_JOBS:-2}

command -v clang++ >/dev/null || { echo "fuzz/run.sh: clang++ not found (scripts/install-deps.sh --with-fuzz)" >&2; exit 1; }

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DOVS_FUZZ=ON -DOVS_BUILD_TESTS=OFF -DOVS_BUILD_BENCH=OFF -DOVS_BUILD_MICROBENCH=OFF >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
cmake --build build-fuzz -j "$jobs" --target "${build_targets[@]}"

out=build-fuzz/fuzz-out
mkdir -p "$out"
dict_of() { case $1 in trace) echo fuzz/dict/trace.dict ;; csv) echo fuzz/dict/csv.dict ;; *) echo fuzz/dict/yaml.dict ;; esac; }

# Allocation stacks are not recorded and freed memory not filled (a third of the time went to the
# allocator's bookkeeping); replay a crash file to get the full report.
asan_options=${ASAN_OPTIONS:-detect_leaks=1:malloc_context_size=0:max_malloc_fill_size=0:quarantine_size_mb=64}

# The shipped folders that seed a target as they are (fuzz/seeds.txt).
seed_dirs() { awk -v t="$1" '$1 == t { print $2 }' fuzz/seeds.txt; }

run_one() {
  local t=$1
  mkdir -p "$out/corpus/$t"
  # The working corpus first (new inputs go there), then the committed seeds (read only).
  OVERLAPSIM_HOME="$PWD" ASAN_OPTIONS="$asan_options" UBSAN_OPTIONS=print_stacktrace=1 \
    "build-fuzz/fuzz/fuzz_$t" -runs="$runs" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 -max_len=16384 \
    -dict="$(dict_of "$t")" -print_final_stats=1 -artifact_prefix="$out/$t-" \
    "$out/corpus/$t" "fuzz/corpus/$t" $(seed_dirs "$t") </dev/null >"$out/$t.log" 2>&1 || true
}

pids=()
for t in "${targets[@]}"; do
  rm -f "$out/$t-"crash-* "$out/$t-"timeout-* "$out/$t-"oom-* "$out/$t-"leak-*
  run_one "$t" &
  pids+=($!)
  if [[ ${#pids[@]} -ge $jobs ]]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
wait

status=0
printf '%-14s %12s %10s %10s  %s\n' target executions seconds 'exec/s' 'crash files'
for t in "${targets[@]}"; do
  log="$out/$t.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  crashes=$(ls "$out/$t-"{crash,timeout,oom,leak}-* 2>/dev/null | tr '\n' ' ' || true)
  [[ -n "$crashes" ]] && status=1
  printf '%-14s %12s %10s %10s  %s\n' "$t" "${execs:-?}" "${secs:--}" "${rate:-?}" "${crashes:-none}"
done
echo "logs: $out/<target>.log; to replay an input: build-fuzz/fuzz/fuzz_<target> FILE"
exit $status
