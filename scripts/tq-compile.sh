#!/usr/bin/env bash
# Compiles TurboQuant builds for tq-gpu from a directory with one file per
# kernel (kernels/turboquant, or a copy of it with a variant's edits): reads
# `NAME ARGUMENTS...` lines (as `tq-gpu --list` prints them) on stdin and
# writes OUT/NAME.ptx for each, compiled from DIR/K.tile, K being the line's
# --kernel (turboquant_rotate, turboquant_decode_stage1 or
# turboquant_decode_stage2):
#   scripts/tq-compile.sh OUT DIR [extra tilec compile arguments...] < LIST
# The extra arguments come after each build's own (a later -D wins); TARGET
# (default sm_90a) is the target. Used by scripts/gpu-artifacts.sh and
# scripts/tq-variant.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/tq-compile.sh OUT DIR [tilec compile arguments...] < LIST" >&2
  exit 2
fi
out=$1 dir=$2
shift 2
if [ ! -d "$dir" ]; then
  echo "tq-compile.sh: $dir is not a directory (of the kernels' .tile files)" >&2
  exit 2
fi
while read -r name args; do
  # shellcheck disable=SC2206 # the arguments are words
  words=($args)
  kernel=
  for ((i = 0; i < ${#words[@]}; i++)); do
    case ${words[i]} in
      --kernel) kernel=${words[i + 1]:-} ;;
      --kernel=*) kernel=${words[i]#--kernel=} ;;
    esac
  done
  if [ -z "$kernel" ]; then
    echo "tq-compile.sh: build '$name' names no --kernel" >&2
    exit 1
  fi
  build/tools/tilec/tilec compile "$dir/$kernel.tile" "${words[@]}" "$@" \
    --target="${TARGET:-sm_90a}" -o "$out/$name.ptx" </dev/null
done
