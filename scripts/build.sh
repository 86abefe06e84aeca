#!/usr/bin/env bash
# Configure (once) and build tilec in build/ with LLVM 22's clang and lld.
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths relative to the checkout in ccache's hashes: clones share the cache.
export CCACHE_BASEDIR="$PWD"
LLVM_BIN=/usr/lib/llvm-22/bin
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=$LLVM_BIN/clang -DCMAKE_CXX_COMPILER=$LLVM_BIN/clang++ \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
# Optional arguments name the targets to build (default: all).
cmake --build build -j "$(nproc)" ${1:+--target "$@"}
