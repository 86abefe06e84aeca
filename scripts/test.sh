#!/usr/bin/env bash
# The whole test suite: build, then lit (FileCheck) + gtest + numeric tests via ctest.
#
#   scripts/test.sh                  build/ (Release), ctest
#   scripts/test.sh --sanitize       build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer,
#                                    -O1, libFuzzer-instrumented), the same ctest there
#   scripts/test.sh --fuzz-ci        build-asan/, then each libFuzzer target of fuzz/ for a
#                                    fixed number of executions (-runs) from a fixed -seed and
#                                    its seed corpus in a fixed order: the same inputs on every
#                                    run, so that a failure reproduces; what .ci/run runs
#   scripts/test.sh --fuzz [SECONDS] build-asan/, exploratory: each target for SECONDS (default
#                                    $TILEC_FUZZ_SECONDS, else 45) from a random seed
#
# In both fuzzing modes a crash, hang, leak or OOM fails. .ci/run runs the first
# mode, then --sanitize, then --fuzz-ci (see README "Testing"). Sanitizer reports
# abort the process (abort_on_error), so lit's `not` and ctest count them as failures.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}

case "$mode" in
  "")
    scripts/setup.sh --no-run
    cd build && exec ctest --output-on-failure -j "$(nproc)"
    ;;
  --sanitize|--fuzz|--fuzz-ci) ;;
  *)
    echo "usage: scripts/test.sh [--sanitize | --fuzz-ci | --fuzz [SECONDS]]" >&2
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
# exit and stay reachable, so they are not reported; fuzz/lsan.supp is where a
# suppression would go, with its reason (none is needed now).
#
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons the unused part of
# each slab when the code calling it is built with ASan, and unpoisons what it
# hands out; libMLIR is not, so when instrumented inline code (a tile dialect
# attribute's storage) starts a slab of an MLIRContext allocator and libMLIR
# then allocates from it (a StringAttr), libMLIR's writes hit poisoned memory:
# a false "use-after-poison" (seen in tilec compile of tests/gpu/kernels/
# layouts.tile, depending on the lengths of the paths). Without user poisoning
# ASan still checks every heap, stack and global access.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="abort_on_error=1:halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_SYMBOLIZER_PATH=$LLVM_BIN/llvm-symbolizer

if [ "$mode" = --sanitize ]; then
  cd build-asan && exec ctest --output-on-failure -j "$(nproc)"
fi

# Fuzzing: each target from its seeds (kernels/, tests/diagnostics/,
# fuzz/corpus/, fuzz/regressions/), given to libFuzzer as one sorted list
# (-seed_inputs) so that the corpus order does not depend on the file system;
# new inputs are not kept. A failing input is written to
# build-asan/fuzz-artifacts/: minimise it, fix the bug, then add it to
# fuzz/regressions/ (fuzz/README.md).
#
# --fuzz-ci: executions per target (-runs, including the seeds) and the seed,
# fixed so that every CI run tries the same inputs; each takes 40-80 s on
# 2 cores, by load (README "Testing" has the figures). Change them only with
# those figures. The targets run with address space randomisation off
# (setarch -R): LLVM's and MLIR's pointer-keyed hash tables make coverage
# depend on addresses, and with it the inputs libFuzzer keeps and mutates.
declare -A ci_runs=([frontend]=30000 [cache]=240000)
ci_seed=20261130
fixed_addresses=()
if [ "$mode" = --fuzz-ci ]; then
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    fixed_addresses=(setarch "$(uname -m)" -R)
  else
    echo "note: setarch -R is not permitted here: addresses are randomised, so the" \
      "inputs tried may differ from run to run (failures still reproduce from their artifacts)"
  fi
fi
seconds=${2:-${TILEC_FUZZ_SECONDS:-45}}
work=build-asan/fuzz-work
artifacts=build-asan/fuzz-artifacts
rm -rf "$work" && mkdir -p "$work" "$artifacts"
status=0
for target in frontend cache; do
  if [ $target = frontend ]; then
    find kernels tests/diagnostics fuzz/corpus/frontend fuzz/regressions/frontend \
      -type f -name '*.tile'
  else
    find fuzz/corpus/cache fuzz/regressions/cache -type f -name '*.tilecache'
  fi | LC_ALL=C sort > "$work/$target-seeds.txt"
  if grep -q , "$work/$target-seeds.txt"; then
    echo "a seed's path has a comma, which -seed_inputs cannot take" >&2
    exit 1
  fi
  paste -sd, "$work/$target-seeds.txt" > "$work/$target-seeds.list"
  mkdir -p "$work/$target-new"
  nseeds=$(wc -l < "$work/$target-seeds.txt")
  if [ "$mode" = --fuzz-ci ]; then
    budget=(-runs="${ci_runs[$target]}" -seed=$ci_seed -reload=0)
    echo "== fuzz-$target: ${ci_runs[$target]} runs, seed $ci_seed, from $nseeds seeds"
  else
    budget=(-max_total_time="$seconds")
    echo "== fuzz-$target: $seconds s from $nseeds seeds"
  fi
  set +e
  # -timeout: one input running longer is a hang; -rss_limit_mb: out of memory;
  # -max_len: big enough for real kernels, small enough to keep it fast.
  start=$SECONDS
  "${fixed_addresses[@]}" build-asan/fuzz/fuzz-$target "$work/$target-new" -seed_inputs=@"$work/$target-seeds.list" \
    "${budget[@]}" -dict=fuzz/$target.dict -timeout=10 -rss_limit_mb=4096 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts/$target-" \
    > "$work/$target.log" 2>&1
  rc=$?
  set -e
  grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|Done [0-9]+ runs)' \
    "$work/$target.log" || true
  echo "fuzz-$target: $((SECONDS - start)) s"
  if [ $rc -ne 0 ]; then
    tail -n 60 "$work/$target.log"
    echo "fuzz-$target FAILED (exit $rc); inputs: $(ls "$artifacts"/$target-* 2>/dev/null | tr '\n' ' ')"
    status=1
  fi
done
exit $status
