#!/usr/bin/env bash
# Builds overlapsim's CUDA microbenchmarks, runs the whole suite on this machine's GPU, then fits
# a hardware profile to the results.
#
#   bash calibrate/run-on-gpu.sh [--quick] [--base PROFILE] [--only FAMILIES]
#                                (from the repository root, or anywhere)
#
# Writes calibrate/data/<gpu-name>-<UTC time>/: <family>.csv and <family>.log for launch, hbm,
# l2, gemm and concurrency, nvidia-smi.txt, and - when overlapsim itself builds here -
# fitted-profile.yaml (overlapsim calibrate --bench <that folder> --base PROFILE), fit-report.txt
# and validate-{base,fitted}.txt (overlapsim validate <that folder> with each profile).
# PROFILE defaults to the shipped profile of this GPU (h200-sxm, h100-sxm, h800-sxm, b200; else
# h200-sxm). --quick takes 5 repetitions per point instead of 20. --only runs some families
# (comma-separated: launch, hbm, l2, gemm, concurrency, layer). The layer family runs the bench
# plans shipped for PROFILE in calibrate/layer-plans/PROFILE/ (scripts/export-layer-plans.sh wrote
# them with `overlapsim whatif --export-layers`: DeepSeek-V3 layers, serial, two-batch overlap and
# single-batch overlap at a few decode and prefill batches) into <folder>/layer/, with the plans
# and programs beside its layer.csv, and `overlapsim validate <folder>/layer` compares them with
# the engine (validate-layer.txt). Needs CMake, Ninja, a C++20
# compiler and the CUDA Toolkit, no network; overlapsim's own libraries (scripts/install-deps.sh)
# only for the fit. Family timeouts are cut so that all end within 7 minutes of the start (build
# included); the fit takes seconds, so the whole run ends within 8.
set -euo pipefail

usage="usage: bash calibrate/run-on-gpu.sh [--quick] [--base PROFILE] [--only FAMILIES]"
quick=()
base=""
families=(launch hbm l2 gemm concurrency layer)
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --base)
      [ $# -ge 2 ] || { echo "run-on-gpu.sh: --base needs a profile name or path ($usage)" >&2; exit 2; }
      base="$2"
      shift
      ;;
    --only)
      [ $# -ge 2 ] || { echo "run-on-gpu.sh: --only needs families ($usage)" >&2; exit 2; }
      IFS=, read -r -a families <<< "$2"
      for family in "${families[@]}"; do
        case "$family" in
          launch | hbm | l2 | gemm | concurrency | layer) ;;
          *) echo "run-on-gpu.sh: --only: unknown family '$family' ($usage)" >&2; exit 2 ;;
        esac
      done
      shift
      ;;
    -h | --help)
      sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "run-on-gpu.sh: unknown argument '$1' ($usage)" >&2
      exit 2
      ;;
  esac
  shift
done

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
deadline_s=420 # every family ends within this many seconds of the start

if ! command -v nvidia-smi > /dev/null 2>&1; then
  echo "run-on-gpu.sh: nvidia-smi not found: this needs a machine with an NVIDIA GPU and its driver" >&2
  exit 1
fi
if ! gpu_name="$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)" ||
  [ -z "$gpu_name" ]; then
  echo "run-on-gpu.sh: nvidia-smi sees no GPU (is the driver loaded?)" >&2
  exit 1
fi

nvcc_path="$(command -v nvcc || true)"
if [ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ]; then nvcc_path=/usr/local/cuda/bin/nvcc; fi
if [ -z "$nvcc_path" ]; then
  echo "run-on-gpu.sh: nvcc not found (on PATH or /usr/local/cuda/bin): install the CUDA Toolkit" >&2
  exit 1
fi
for tool in cmake ninja; do
  if ! command -v "$tool" > /dev/null 2>&1; then
    echo "run-on-gpu.sh: $tool not found: install it (Debian: apt-get install cmake ninja-build)" >&2
    exit 1
  fi
done
cuda_flags=(-DCMAKE_CUDA_COMPILER="$nvcc_path" -DCUDAToolkit_ROOT="$(dirname "$(dirname "$nvcc_path")")")

slug="$(printf '%s' "$gpu_name" | tr '[:upper:]' '[:lower:]' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')"
if [ -z "$base" ]; then
  case "$slug" in
    *h200*) base=h200-sxm ;;
    *h100*) base=h100-sxm ;;
    *h800*) base=h800-sxm ;;
    *b200*) base=b200 ;;
    *) base=h200-sxm ;;
  esac
fi

# overlapsim and the microbenchmarks in one build (the top-level CMakeLists adds calibrate/ when
# it finds the CUDA Toolkit); without overlapsim's libraries, the microbenchmarks alone.
build_dir="$repo_root/build-gpu"
overlapsim=""
if [ -f "$build_dir/CMakeCache.txt" ] &&
  grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$repo_root/calibrate\$" "$build_dir/CMakeCache.txt"; then
  rm -rf "$build_dir/CMakeCache.txt" "$build_dir/CMakeFiles" # an older microbenchmark-only build
fi
mkdir -p "$build_dir"
echo "== building overlapsim and overlapsim_microbench in $build_dir (nvcc: $nvcc_path)"
if cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOVS_BUILD_TESTS=OFF \
  -DOVS_BUILD_BENCH=OFF -DOVS_BUILD_MICROBENCH=ON "${cuda_flags[@]}" \
  > "$build_dir/configure.log" 2>&1 && grep -q "overlapsim_microbench" "$build_dir/build.ninja"; then
  cmake --build "$build_dir" --target overlapsim overlapsim_microbench
  bench="$build_dir/calibrate/overlapsim_microbench"
  overlapsim="$build_dir/overlapsim"
else
  echo "run-on-gpu.sh: overlapsim does not configure here with the microbenchmarks (missing" \
    "libraries? see $build_dir/configure.log; scripts/install-deps.sh installs them): building" \
    "the microbenchmarks alone; fit the CSVs elsewhere with overlapsim calibrate --bench" >&2
  bench_build="$repo_root/build-gpu-bench"
  mkdir -p "$bench_build"
  cmake -S calibrate -B "$bench_build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_flags[@]}" \
    > "$bench_build/configure.log" 2>&1 || {
    cat "$bench_build/configure.log" >&2
    echo "run-on-gpu.sh: CMake configure failed (log above)" >&2
    exit 1
  }
  cmake --build "$bench_build" --target overlapsim_microbench
  bench="$bench_build/overlapsim_microbench"
fi

out_dir="$repo_root/calibrate/data/${slug}-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out_dir"
nvidia-smi -q > "$out_dir/nvidia-smi.txt" 2>&1 || true
echo "== $gpu_name -> $out_dir"

failed=()
plans_dir="$repo_root/calibrate/layer-plans/$base"
for family in "${families[@]}"; do
  left=$((deadline_s - SECONDS))
  if [ "$left" -lt 20 ]; then
    failed+=("$family")
    echo "run-on-gpu.sh: $family not run: the 8-minute budget is spent (${SECONDS} s so far)" >&2
    continue
  fi
  limit=$((left < 300 ? left : 300))
  echo "== $family (at most ${limit} s)"
  if [ "$family" = layer ]; then
    if [ ! -d "$plans_dir" ]; then
      failed+=(layer)
      echo "run-on-gpu.sh: layer: no plans for $base in $plans_dir (scripts/export-layer-plans.sh)" >&2
      continue
    fi
    mkdir -p "$out_dir/layer"
    cp "$plans_dir"/*.plan "$plans_dir"/*.yaml "$out_dir/layer/"
    if ! timeout "$limit" "$bench" --family layer --plans "$out_dir/layer" --out "$out_dir/layer" \
      ${quick[@]+"${quick[@]}"} 2>&1 | tee "$out_dir/layer/layer.log"; then
      failed+=(layer)
      echo "run-on-gpu.sh: layer failed (see $out_dir/layer/layer.log)" >&2
    fi
    continue
  fi
  if ! timeout "$limit" "$bench" --family "$family" --out "$out_dir" ${quick[@]+"${quick[@]}"} 2>&1 |
    tee "$out_dir/$family.log"; then
    failed+=("$family")
    echo "run-on-gpu.sh: $family failed (see $out_dir/$family.log)" >&2
  fi
done

fit_status=0
if [ -n "$overlapsim" ] && [ -f "$out_dir/layer/layer.csv" ]; then
  echo "== overlapsim validate $out_dir/layer"
  "$overlapsim" validate "$out_dir/layer" 2>&1 | tee "$out_dir/layer/validate-layer.txt" || fit_status=1
fi
if [ -n "$overlapsim" ] && ls "$out_dir"/*.csv > /dev/null 2>&1; then
  echo
  echo "== overlapsim calibrate --bench $out_dir --base $base"
  if "$overlapsim" calibrate --bench "$out_dir" --base "$base" \
    --out "$out_dir/fitted-profile.yaml" > "$out_dir/fit-report.txt" 2>&1; then
    cat "$out_dir/fit-report.txt"
    "$overlapsim" validate "$out_dir" --hw "$base" > "$out_dir/validate-base.txt" 2>&1 || true
    echo "== overlapsim validate $out_dir --hw fitted-profile.yaml (validate-base.txt: $base as shipped)"
    "$overlapsim" validate "$out_dir" --hw "$out_dir/fitted-profile.yaml" 2>&1 |
      tee "$out_dir/validate-fitted.txt" || fit_status=1
  else
    fit_status=1
    cat "$out_dir/fit-report.txt" >&2
    echo "run-on-gpu.sh: the fit failed (above)" >&2
  fi
fi

echo
echo "Results in $out_dir (${SECONDS} s):"
ls -l "$out_dir"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "run-on-gpu.sh: failed families: ${failed[*]}" >&2
  exit 1
fi
exit "$fit_status"
