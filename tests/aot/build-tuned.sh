#!/usr/bin/env bash
# Generates the AOT launcher of tests/cli/Inputs/tunable.tile with the tuned
# configurations of tests/aot/tuned/tuned.txt, builds tests/aot/tuned with
# plain CMake against it, and runs it. Without a GPU the launcher must refuse
# with the targets it was built for; with one, every launch must run the
# configuration tuned for its key (the defaults for other keys) and pass.
set -euo pipefail
root=$1 tilec=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$tilec" aot "$root/tests/cli/Inputs/tunable.tile" --target=sm_80,sm_90a --no-cache \
  --tuned "$root/tests/aot/tuned/tuned.txt" --variant x=16,y=16 -o "$work/gen"
cmake -S "$root/tests/aot/tuned" -B "$work/build" -G Ninja -DTILEC_ROOT="$root" \
  -DGENERATED_DIR="$work/gen" -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ >/dev/null
cmake --build "$work/build" >/dev/null
set +e
"$work/build/aot-tuned-scale"
echo "exit code $?"
