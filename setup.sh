#!/usr/bin/env bash
# The two commands of the README:
#   ./setup.sh demo   install dependencies, build, run the main job on a shipped default
#   ./setup.sh test   install dependencies, build, run every test
# BUILD_DIR (default build/), BUILD_TYPE (default Release), CMAKE_ARGS and CTEST_ARGS may be set
# in the environment (.ci/run uses them for its sanitizer pass).
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-}"
case "$mode" in demo|test|build) ;; *)
  echo "usage: ./setup.sh demo|test|build" >&2; exit 2;;
esac

./scripts/install-deps.sh
build_dir="${BUILD_DIR:-build}"
build_type="${BUILD_TYPE:-Release}"
jobs="$(nproc)"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$jobs"

case "$mode" in
  demo) scripts/demo.sh "$build_dir/overlapsim" ;;
  test) ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" ${CTEST_ARGS:-} ;;
  build) ;;
esac
