#!/usr/bin/env bash
# An alternate set of TurboQuant stage-1 builds for an A/B run on the GPU, next
# to the payload's own (run scripts/gpu-artifacts.sh first):
#   scripts/tq-variant.sh NAME DIR [tilec compile arguments...]
# copies tq-gpu and the payload's TurboQuant builds into .carry/gpu/NAME and
# rebuilds there every `.mma.tok[.pN][.cK]` build (FORM=page: every `.page`
# build, formulation 3) of tq-builds.txt from DIR (a copy
# of kernels/turboquant with the variant's edits: one .tile file per kernel,
# scripts/tq-compile.sh) with the extra arguments appended (a later -D wins),
# and every stage-2 build from DIR as it is. Then re-pack and, on the device,
#   cd .carry/gpu/NAME && ./tq-gpu . --formulation 2
# checks and times that formulation alone (bench/RESULTS.md, runs 27-29).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/tq-variant.sh NAME DIR [tilec compile arguments...]" >&2
  exit 2
fi
name=$1 dir=$2
shift 2
gpu=.carry/gpu
if [ ! -f "$gpu/tq-builds.txt" ] || [ ! -x "$gpu/tq-gpu" ]; then
  echo "tq-variant.sh: no TurboQuant builds in $gpu: run scripts/gpu-artifacts.sh first" >&2
  exit 1
fi
out=$gpu/$name
rm -rf "$out" && mkdir -p "$out"
cp "$gpu/tq-gpu" "$gpu"/turboquant_* "$out/"
if [ "${FORM:-}" = page ]; then
  pattern='\.page '
else
  pattern='\.mma\.tok(\.p[0-9]+)?(\.c[0-9]+)? '
fi
grep -E "$pattern" "$gpu/tq-builds.txt" | scripts/tq-compile.sh "$out" "$dir" "$@" --no-cache
grep '^turboquant_decode_stage2\.' "$gpu/tq-builds.txt" |
  scripts/tq-compile.sh "$out" "$dir" --no-cache
tar -C .carry -cJf .carry/payload.tar.xz gpu anchors
echo "tq-variant.sh: $out ready; .carry/payload.tar.xz re-packed"
