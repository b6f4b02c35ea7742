#!/usr/bin/env bash
# Builds overlapsim's CUDA microbenchmarks and runs the whole suite on this machine's GPU.
#
#   bash calibrate/run-on-gpu.sh [--quick]      (from the repository root, or anywhere)
#
# Builds calibrate/ on its own (CMake + Ninja, Release, into build-gpu/; needs only CMake, a C++20
# compiler and the CUDA Toolkit, no network), then runs every family and writes the CSVs to
# calibrate/results/<gpu-name>-<UTC date>/. --quick takes 5 repetitions per point instead of 20.
# On an H200 the build takes about a minute and the suite a few minutes.
set -euo pipefail

quick=()
case "${1:-}" in
  "") ;;
  --quick) quick=(--quick) ;;
  -h | --help)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "run-on-gpu.sh: unknown argument '$1' (usage: bash calibrate/run-on-gpu.sh [--quick])" >&2
    exit 2
    ;;
esac

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

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

build_dir="$repo_root/build-gpu"
echo "== building overlapsim_microbench in $build_dir (nvcc: $nvcc_path)"
mkdir -p "$build_dir"
cmake -S calibrate -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc_path" -DCUDAToolkit_ROOT="$(dirname "$(dirname "$nvcc_path")")" \
  > "$build_dir/configure.log" 2>&1 || {
  cat "$build_dir/configure.log" >&2
  echo "run-on-gpu.sh: CMake configure failed (log above)" >&2
  exit 1
}
cmake --build "$build_dir" --target overlapsim_microbench
bench="$build_dir/overlapsim_microbench"

slug="$(printf '%s' "$gpu_name" | tr '[:upper:]' '[:lower:]' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')"
out_dir="$repo_root/calibrate/results/${slug}-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out_dir"
nvidia-smi -q > "$out_dir/nvidia-smi.txt" 2>&1 || true
echo "== $gpu_name -> $out_dir"

failed=()
for family in launch hbm l2 gemm concurrency; do
  echo "== $family"
  if ! timeout 300 "$bench" --family "$family" --out "$out_dir" ${quick[@]+"${quick[@]}"} 2>&1 |
    tee "$out_dir/$family.log"; then
    failed+=("$family")
    echo "run-on-gpu.sh: $family failed (see $out_dir/$family.log)" >&2
  fi
done

echo
echo "CSVs in $out_dir:"
ls -l "$out_dir"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "run-on-gpu.sh: failed families: ${failed[*]}" >&2
  exit 1
fi
