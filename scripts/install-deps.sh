#!/usr/bin/env bash
# Installs the Debian 12 packages overlapsim needs to build and test, and nothing else.
# Idempotent: when every package is already installed it prints nothing and exits 0.
set -euo pipefail

packages=(
  g++ cmake ninja-build
  libboost-graph-dev libeigen3-dev libyaml-cpp-dev libcli11-dev catch2
  nlohmann-json3-dev libfmt-dev libbenchmark-dev
)
for opt in "$@"; do
  case "$opt" in
    --with-fuzz) packages+=(clang libclang-rt-14-dev) ;;
    --with-format) packages+=(clang-format) ;;  # CI's format check (scripts/check-format.sh)
    *) echo "install-deps: unknown option $opt (--with-fuzz, --with-format)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "install-deps: apt-get failed" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
