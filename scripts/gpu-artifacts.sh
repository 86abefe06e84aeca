#!/usr/bin/env bash
# Builds what a GPU run needs into .carry/gpu (ignored by git, carried to the
# GPU machine): the PTX of every norm kernel for sm_90a in bf16/f16/f32, a
# generic build and one specialised on 16-divisible sizes and 16-byte aligned
# pointers, plus the norm-gpu program.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh tilec norm-gpu launch-overhead >/dev/null
out=.carry/gpu
rm -rf "$out" && mkdir -p "$out"
tilec=build/tools/tilec/tilec
target=${TARGET:-sm_90a}
for k in rms_norm fused_add_rms_norm rms_norm_gelu embed_sum_rms_norm; do
  case $k in
    rms_norm|rms_norm_gelu) assume="x w y N x_stride y_stride" ;;
    fused_add_rms_norm) assume="x res w N x_stride res_stride" ;;
    embed_sum_rms_norm) assume="table w y N table_stride y_stride" ;;
  esac
  spec=()
  for a in $assume; do spec+=(--assume "$a=16"); done
  for t in bf16 f16 f32; do
    common=(kernels/norms/$k.tile --target=$target -D T=$t -D BLOCK=2048 --num-warps=8)
    $tilec compile "${common[@]}" -o $out/$k.$t.generic.ptx
    $tilec compile "${common[@]}" "${spec[@]}" -o $out/$k.$t.div16.ptx
  done
  # Timing builds, one per row length as a JIT would make them: the whole row
  # in one BLOCK (one pass), 16 bytes per thread and access.
  for n in 4096 5120 7168 8192 16384; do
    block=1; while [ $block -lt $n ]; do block=$((block * 2)); done
    warps=$((block / 512)); [ $warps -lt 4 ] && warps=4; [ $warps -gt 16 ] && warps=16
    $tilec compile kernels/norms/$k.tile --target=$target -D T=bf16 -D BLOCK=$block \
      --num-warps=$warps "${spec[@]}" -o $out/$k.bf16.n$n.ptx
    # A small sweep over warps per program; norm-gpu times each and reports the best.
    for w in 4 8 16; do
      [ $w -eq $warps ] && continue
      $tilec compile kernels/norms/$k.tile --target=$target -D T=bf16 -D BLOCK=$block \
        --num-warps=$w "${spec[@]}" -o $out/$k.bf16.n$n.w$w.ptx
    done
  done
done
$tilec compile bench/launch/trivial.tile --target=$target -o $out/trivial.ptx
cp build/tests/gpu/norm-gpu build/bench/launch-overhead "$out/"
echo "wrote $(ls $out | wc -l) files to $out"
