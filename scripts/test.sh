#!/usr/bin/env bash
# The whole test suite: build, then lit (FileCheck) + gtest + numeric tests via ctest.
#
#   scripts/test.sh                  build/ (Release), ctest
#   scripts/test.sh --sanitize       build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer,
#                                    -O1, libFuzzer-instrumented), the same ctest there
#   scripts/test.sh --fuzz [SECONDS] build-asan/, then each libFuzzer target of fuzz/ for
#                                    SECONDS (default $TILEC_FUZZ_SECONDS, else 45) from its
#                                    seed corpus; a crash, hang, leak or OOM fails
#
# .ci/run runs the first mode only (see README "Testing"). Sanitizer reports abort the process (abort_on_error), so
# lit's `not` and ctest count them as failures.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}

case "$mode" in
  "")
    scripts/setup.sh --no-run
    cd build && exec ctest --output-on-failure -j "$(nproc)"
    ;;
  --sanitize|--fuzz) ;;
  *)
    echo "usage: scripts/test.sh [--sanitize | --fuzz [SECONDS]]" >&2
    exit 2
    ;;
esac

# The sanitizer build (build-asan/): one configuration serves both modes.
scripts/setup.sh --deps-only
# Paths relative to the checkout in ccache's hashes, as in scripts/build.sh.
export CCACHE_BASEDIR="$PWD"
LLVM_BIN=/usr/lib/llvm-22/bin
if [ ! -f build-asan/build.ninja ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_COMPILER=$LLVM_BIN/clang -DCMAKE_CXX_COMPILER=$LLVM_BIN/clang++ \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DTILEC_SANITIZE=ON -DTILEC_FUZZ=ON
fi
cmake --build build-asan -j "$(nproc)"

# Leaks: on (LeakSanitizer). LLVM's and MLIR's global registries live until
# exit and stay reachable, so they are not reported; fuzz/lsan.supp lists the
# few suppressions needed, each with its reason.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="abort_on_error=1:halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_SYMBOLIZER_PATH=$LLVM_BIN/llvm-symbolizer

if [ "$mode" = --sanitize ]; then
  cd build-asan && exec ctest --output-on-failure -j "$(nproc)"
fi

# --fuzz: each target from a fresh copy of its seeds (kernels/, tests/diagnostics/,
# fuzz/corpus/, fuzz/regressions/); new inputs are not kept. A failing input is
# written to build-asan/fuzz-artifacts/: minimise it, then add it to fuzz/regressions/.
seconds=${2:-${TILEC_FUZZ_SECONDS:-45}}
work=build-asan/fuzz-work
artifacts=build-asan/fuzz-artifacts
rm -rf "$work" && mkdir -p "$work" "$artifacts"
status=0
for target in frontend cache; do
  seeds=$work/$target-seeds
  mkdir -p "$seeds" "$work/$target-new"
  if [ $target = frontend ]; then
    find kernels tests/diagnostics fuzz/corpus/frontend fuzz/regressions/frontend \
      -type f -name '*.tile' -exec cp -t "$seeds" {} +
  else
    find fuzz/corpus/cache fuzz/regressions/cache -type f -name '*.tilecache' \
      -exec cp -t "$seeds" {} +
  fi
  echo "== fuzz-$target: $seconds s from $(ls "$seeds" | wc -l) seeds"
  set +e
  # -timeout: one input running longer is a hang; -rss_limit_mb: out of memory;
  # -max_len: big enough for real kernels, small enough to keep it fast.
  build-asan/fuzz/fuzz-$target "$work/$target-new" "$seeds" \
    -dict=fuzz/$target.dict -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts/$target-" \
    > "$work/$target.log" 2>&1
  rc=$?
  set -e
  grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|Done [0-9]+ runs)' \
    "$work/$target.log" || true
  if [ $rc -ne 0 ]; then
    tail -n 60 "$work/$target.log"
    echo "fuzz-$target FAILED (exit $rc); inputs: $(ls "$artifacts"/$target-* 2>/dev/null | tr '\n' ' ')"
    status=1
  fi
done
exit $status
