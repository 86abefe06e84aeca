#!/usr/bin/env bash
# The whole test suite: build, then lit (FileCheck) + gtest + numeric tests via ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-run
cd build && ctest --output-on-failure -j "$(nproc)"
