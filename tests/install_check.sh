#!/bin/sh
# cmake --install puts the binary in <prefix>/bin and the data in <prefix>/share/overlapsim, and
# the installed binary finds its data from anywhere, without OVERLAPSIM_HOME.
# Usage: install_check.sh BUILD_DIR
set -eu
build=$(cd "$1" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/overlapsim"
for f in hw_profiles/h800-sxm.yaml models/configs/deepseek-v3.yaml strategies/deepseek-v3/tbo-decode.yaml \
  sglang/flags.yaml; do
  test -f "$prefix/share/overlapsim/$f" || { echo "missing $prefix/share/overlapsim/$f"; exit 1; }
done
cd /
out=$(env -u OVERLAPSIM_HOME "$prefix/bin/overlapsim" describe hw h800 --json)
echo "$out" | grep -q "\"file\": \"$prefix/share/overlapsim/hw_profiles/h800-sxm.yaml\"" ||
  { echo "the installed binary did not read its own data: $out" | head -5; exit 1; }
env -u OVERLAPSIM_HOME "$prefix/bin/overlapsim" whatif --tokens-per-gpu 8 --context 1024 --ep 16 \
  --strategy tbo-decode --json >/dev/null
env -u OVERLAPSIM_HOME "$prefix/bin/overlapsim" sglang-check --json -- --model-path deepseek-v3 \
  --tp-size 16 --dp-size 16 --enable-dp-attention --moe-a2a-backend deepep --cuda-graph-max-bs 8 \
  >/dev/null
# OVERLAPSIM_HOME still wins.
out=$(OVERLAPSIM_HOME=/nonexistent "$prefix/bin/overlapsim" describe hw h800 2>&1) && exit 1
echo "$out" | grep -q "unknown hardware profile" || { echo "$out"; exit 1; }
echo "install ok"
