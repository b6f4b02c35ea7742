#!/usr/bin/env bash
# CI: every C++ and CUDA source git tracks is clang-format clean (the project's .clang-format).
# Lists the files that are not, with the first lines of the change clang-format would make, and
# exits 1; exits 0 when the tree is clean. CLANG_FORMAT picks the binary (default: clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
fmt="${CLANG_FORMAT:-clang-format}"
command -v "$fmt" > /dev/null || { echo "check-format: $fmt not found"; exit 2; }
bad=0
while IFS= read -r -d '' f; do
  if ! "$fmt" --style=file "$f" | cmp -s - "$f"; then
    echo "check-format: $f is not clang-format clean:"
    "$fmt" --style=file "$f" | diff -u "$f" - | sed -n '3,12p' || true
    bad=$((bad + 1))
  fi
done < <(git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
if [ "$bad" -gt 0 ]; then
  echo "check-format: $bad file(s) to format: clang-format -i FILE"
  exit 1
fi
echo "check-format: $(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' | wc -l) files clean"
