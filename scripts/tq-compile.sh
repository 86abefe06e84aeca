#!/usr/bin/env bash
# Compiles TurboQuant builds (kernels/turboquant/turboquant_decode.tile or a
# variant of it) for tq-gpu: reads `NAME ARGUMENTS...` lines (as
# `tq-gpu --list` prints them) on stdin and writes OUT/NAME.ptx for each:
#   scripts/tq-compile.sh OUT FILE [extra tilec compile arguments...] < LIST
# The extra arguments come after each build's own (a later -D wins); TARGET
# (default sm_90a) is the target. Used by scripts/gpu-artifacts.sh and
# scripts/tq-variant.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/tq-compile.sh OUT FILE [tilec compile arguments...] < LIST" >&2
  exit 2
fi
out=$1 file=$2
shift 2
while read -r name args; do
  # shellcheck disable=SC2086 # the arguments are words
  build/tools/tilec/tilec compile "$file" $args "$@" --target="${TARGET:-sm_90a}" \
    -o "$out/$name.ptx" </dev/null
done
