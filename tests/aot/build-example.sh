#!/usr/bin/env bash
# Generates the rms_norm AOT launcher, builds examples/aot_rms_norm with plain
# CMake against it, and runs it. Without a GPU the launcher must refuse with
# the targets it was built for; with one it must compute rms_norm correctly.
set -euo pipefail
root=$1 tilec=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$tilec" aot "$root/kernels/norms/rms_norm.tile" --target=sm_80,sm_90a -D T=f32 -D BLOCK=4096 \
  --num-warps=8 --variant x=16,w=16,y=16,N=16,x_stride=16,y_stride=16 -o "$work/gen"
"$tilec" aot "$root/kernels/norms/rms_norm.tile" --target=sm_80,sm_90a -D T=f32 -D BLOCK=4096 \
  --num-warps=8 --variant x=16,w=16,y=16,N=16,x_stride=16,y_stride=16 -o "$work/gen2" >/dev/null
cmp "$work/gen/rms_norm.cpp" "$work/gen2/rms_norm.cpp"
cmp "$work/gen/rms_norm.h" "$work/gen2/rms_norm.h"
echo "aot output is deterministic"
cmake -S "$root/examples/aot_rms_norm" -B "$work/build" -G Ninja -DTILEC_ROOT="$root" \
  -DGENERATED_DIR="$work/gen" -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ >/dev/null
cmake --build "$work/build" >/dev/null
set +e
"$work/build/aot-rms-norm" 64 4096
echo "exit code $?"
