#!/usr/bin/env bash
# Regenerates every README excerpt marked `<!-- output of: overlapsim ARGS -->` from the binary:
# the fenced block after each marker becomes what `overlapsim ARGS` prints today. A marker
# `<!-- run: overlapsim ARGS -->` runs ARGS where it stands (a file the next excerpts read).
# tests/test_readme_excerpts.cpp fails when an excerpt no longer matches (timings such as
# "(0.2 s)" aside).
#   scripts/update-readme-excerpts.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/overlapsim}"
out="$(mktemp)"
skip=0
while IFS= read -r line || [[ -n "$line" ]]; do
  if ((skip == 1)); then            # the old block's opening fence
    skip=2
    continue
  fi
  if ((skip == 2)); then            # inside the old block, up to its closing fence
    [[ "$line" == '```' ]] && skip=0
    continue
  fi
  printf '%s\n' "$line" >> "$out"
  # A step the excerpts after it need (a trace they read), shown as a command, its output not kept.
  if [[ "$line" =~ ^\<!--\ run:\ overlapsim\ (.*)\ --\>$ ]]; then
    read -r -a args <<< "${BASH_REMATCH[1]}"
    "$bin" "${args[@]}" > /dev/null
  fi
  if [[ "$line" =~ ^\<!--\ output\ of:\ overlapsim\ (.*)\ --\>$ ]]; then
    read -r -a args <<< "${BASH_REMATCH[1]}"
    { echo '```'; "$bin" "${args[@]}"; echo '```'; } >> "$out"
    skip=1
  fi
done < README.md
mv "$out" README.md
