#!/usr/bin/env bash
# Builds, on this machine, everything a GPU run needs and packs it into
# .carry/payload.tar.xz (ignored by git; the device call carries that one file,
# and bench/suite.py unpacks it into .carry/ there). Unpacked:
#   .carry/gpu/      the PTX of every norm kernel for sm_90a in bf16/f16/f32, a
#                    generic build and one specialised on 16-divisible sizes
#                    and 16-byte aligned pointers (checks), one-pass timing
#                    builds per row length with a warps sweep; the layout
#                    kernels (layouts/); norm-gpu, layout-gpu,
#                    launch-overhead, the AOT examples (aot-rms-norm, and
#                    aot-tuned-scale: dispatch on tuned configurations);
#                    fp8_mqa_logits and fp8_paged_mqa_logits builds and
#                    mqa-gpu; TurboQuant's three kernels and tq-gpu (when
#                    tests/gpu builds it);
#                    sass/ (cubins for cuobjdump -sass on the GPU machine);
#                    compile-times.json (cold and cache-hit compile times,
#                    measured here) and BUILD_INFO (commit, date)
#   .carry/anchors/  ../shared/anchors (Triton and PyTorch yardsticks)
# The GPU machine needs only its driver and its python3 (torch, triton).
# bench/README.md has the device command. PAYLOAD=FILE packs into FILE instead
# (a second payload, say of a compiler change, carried beside the first and
# moved onto .carry/payload.tar.xz on the GPU machine before the suite runs).
set -euo pipefail
cd "$(dirname "$0")/.."
# tq-gpu (tests/gpu/TqGpu.cpp) once tests/gpu/CMakeLists.txt has it.
programs=(tilec norm-gpu layout-gpu mqa-gpu launch-overhead)
grep -q 'tq-gpu' tests/gpu/CMakeLists.txt && programs+=(tq-gpu)
scripts/build.sh "${programs[@]}" >/dev/null
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
    # A small sweep over warps per program; the timing picks the best.
    for w in 4 8 16; do
      [ $w -eq $warps ] && continue
      $tilec compile kernels/norms/$k.tile --target=$target -D T=bf16 -D BLOCK=$block \
        --num-warps=$w "${spec[@]}" -o $out/$k.bf16.n$n.w$w.ptx
    done
  done
done
$tilec compile bench/launch/trivial.tile --target=$target -o $out/trivial.ptx
# The layout kernels (2-D tiles, reductions, conversions), one build per variant.
mkdir -p $out/layouts
build/tests/gpu/layout-gpu --list | while read -r name args; do
  # shellcheck disable=SC2086 # the arguments are words
  $tilec compile tests/gpu/kernels/layouts.tile $args --target=$target -o $out/layouts/$name.ptx
done
# fp8_mqa_logits and fp8_paged_mqa_logits: the builds mqa-gpu checks and times,
# from its own list (`mqa-gpu --list`: name and tilec compile arguments; its
# source says why each).
build/tests/gpu/mqa-gpu --list | while read -r name args; do
  # shellcheck disable=SC2086 # the arguments are words
  $tilec compile kernels/mqa_logits/${name%%.*}.tile $args --target=$target -o $out/$name.ptx
done
# Cubins (ptxas here) of the kernels whose machine code the suite disassembles on the GPU
# machine (cuobjdump -sass there): mma.sync and wgmma on f16 and fp8, fp8_mqa_logits (wgmma from
# its cp.async ring buffer; one and two query rows per program),
# TurboQuant stage 1 (the default build, .mma.tok's and .page's).
mkdir -p $out/sass
$tilec compile tests/gpu/kernels/layouts.tile --kernel matmul -D T=f16 --target=$target \
  -o $out/sass/matmul.f16.cubin
$tilec compile tests/gpu/kernels/layouts.tile --kernel matmul -D T=f8e4m3 -D BK=32 --target=$target \
  -o $out/sass/matmul.f8e4m3.cubin
$tilec compile tests/gpu/kernels/layouts.tile --kernel matmul -D T=f16 -D BM=64 -D BN=128 \
  -D BK=64 --target=$target -o $out/sass/matmul.wgmma.f16.cubin
$tilec compile tests/gpu/kernels/layouts.tile --kernel matmul -D T=f8e4m3 -D BM=64 -D BN=64 \
  -D BK=128 --target=$target -o $out/sass/matmul.wgmma.f8e4m3.cubin
$tilec compile kernels/mqa_logits/fp8_mqa_logits.tile --target=$target --assume q=16 \
  --assume kv=16 -o $out/sass/fp8_mqa_logits.cubin
$tilec compile kernels/mqa_logits/fp8_mqa_logits.tile --target=$target -D BLOCK_Q=2 \
  --num-warps=8 --assume q=16 --assume kv=16 -o $out/sass/fp8_mqa_logits.bq2.cubin
$tilec compile kernels/turboquant/turboquant_decode_stage1.tile --kernel turboquant_decode_stage1 \
  --target=$target -o $out/sass/turboquant_decode_stage1.k4v4.cubin
$tilec compile kernels/turboquant/turboquant_decode_stage1.tile --kernel turboquant_decode_stage1 \
  -D MMA=2 -D BLOCK_T=16 --num-warps=1 --assume kv_cache=16 --target=$target \
  -o $out/sass/turboquant_decode_stage1.k4v4.mma.tok.cubin
$tilec compile kernels/turboquant/turboquant_decode_stage1.tile --kernel turboquant_decode_stage1 \
  -D MMA=3 -D HKV=8 -D PAGE=16 --num-warps=8 --scalarize --max-registers=128 \
  --assume kv_cache=16 --target=$target -o $out/sass/turboquant_decode_stage1.k4v4.page.cubin
cp build/tests/gpu/norm-gpu build/tests/gpu/layout-gpu build/tests/gpu/mqa-gpu \
  build/bench/launch-overhead "$out/"

# TurboQuant (kernels/turboquant/<kernel>.tile, one file per kernel) for
# tq-gpu DIR. The builds and their names are tq-gpu's own: `tq-gpu --list`
# prints one line per build, "<name> <tilec compile arguments>", and each
# becomes $out/<name>.ptx (tests/gpu/TqGpu.cpp is the one place the naming
# lives), compiled from the file of its --kernel.
tq_builds() {
  build/tests/gpu/tq-gpu --list >"$out/tq-builds.txt" || return 1
  TARGET=$target scripts/tq-compile.sh "$out" kernels/turboquant <"$out/tq-builds.txt" ||
    return 1
  cp build/tests/gpu/tq-gpu bench/tq-ab.sh bench/tq-ncu.sh "$out/"
}
if [ -x build/tests/gpu/tq-gpu ] && ! tq_builds; then
  # Work in progress must not hold back the other GPU checks: no TurboQuant
  # in this payload (the suite then reports it as not measured).
  echo "gpu-artifacts.sh: warning: a TurboQuant build failed; the payload has none" >&2
  rm -f "$out"/turboquant_* "$out/tq-gpu" "$out/tq-ab.sh" "$out/tq-ncu.sh" "$out/tq-builds.txt"
fi

# The AOT example (plain CMake against the generated launcher, no LLVM), as
# tests/aot/build-example.sh builds it.
aot=build/gpu-aot
rm -rf "$aot"
$tilec aot kernels/norms/rms_norm.tile --target=sm_80,$target -D T=f32 -D BLOCK=4096 \
  --num-warps=8 --variant x=16,w=16,y=16,N=16,x_stride=16,y_stride=16 -o "$aot/gen" >/dev/null
cmake -S examples/aot_rms_norm -B "$aot/build" -G Ninja -DTILEC_ROOT="$PWD" \
  -DGENERATED_DIR="$PWD/$aot/gen" -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ >/dev/null
cmake --build "$aot/build" >/dev/null
cp "$aot/build/aot-rms-norm" "$out/"
# The tuned AOT launcher (dispatch on the key; tests/aot/build-tuned.sh).
tests/aot/build-tuned.sh "$PWD" "$tilec" "$PWD/build/gpu-aot-tuned" >/dev/null
cp build/gpu-aot-tuned/build/aot-tuned-scale "$out/"

# Compile times, measured here (the GPU machine has no LLVM): each norm
# kernel's timing build for N = 4096 to PTX, three times into an empty cache
# (cold) and three times from it (hit); `tilec compile --time` times the
# compile inside the process.
times=$(mktemp)
for k in rms_norm fused_add_rms_norm rms_norm_gelu embed_sum_rms_norm; do
  for run in 1 2 3; do
    dir=$(mktemp -d)
    for phase in cold hit; do
      ms=$($tilec compile kernels/norms/$k.tile --target=$target -D T=bf16 -D BLOCK=4096 \
             --num-warps=8 --time --cache-dir "$dir" -o "$dir/out.ptx" 2>&1 >/dev/null |
           sed -n 's/.*: \([0-9.]*\) ms.*/\1/p')
      echo "$k $phase $ms" >>"$times"
    done
    rm -rf "$dir"
  done
done
python3 - "$times" "$out/compile-times.json" "$target" <<'EOF'
import json, os, sys
rows = {}
for line in open(sys.argv[1]):
    kernel, phase, ms = line.split()
    rows.setdefault(kernel, {"kernel": kernel, "cold_ms": [], "hit_ms": []})[phase + "_ms"].append(float(ms))
json.dump({"target": sys.argv[3], "what": "tilec compile --time, bf16, BLOCK=4096, 8 warps, to PTX",
           "machine": f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end",
           "kernels": list(rows.values())}, open(sys.argv[2], "w"), indent=1)
EOF
rm -f "$times"

dirty=$(git status --porcelain --untracked-files=no | wc -l)
{
  echo "commit $(git rev-parse HEAD)"
  echo "short $(git rev-parse --short HEAD)"
  echo "dirty $dirty"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "target $target"
} >"$out/BUILD_INFO"

# The anchors travel with the payload (../shared does not travel).
rm -rf .carry/anchors && mkdir -p .carry/anchors
cp ../shared/anchors/triton_anchors.py ../shared/anchors/README.md .carry/anchors/
payload=${PAYLOAD:-.carry/payload.tar.xz}
tar -C .carry -cJf "$payload" gpu anchors
echo "wrote $(ls $out | wc -l) files to $out; $payload is" \
  "$(du -k "$payload" | cut -f1) KiB (commit $(git rev-parse --short HEAD)," \
  "$dirty modified tracked files)"
