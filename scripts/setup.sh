#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what tilec needs (idempotent),
# build it, and run the main job (compile the showcase kernels, run the norms on the
# host CPU against their references). --no-run stops after the build, --deps-only
# after the packages.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(llvm-22-dev libmlir-22-dev mlir-22-tools lld-22 liblld-22-dev clang-22 libclang-rt-22-dev libzstd-dev
      libfmt-dev googletest libgtest-dev cmake ninja-build ccache python3)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

[ "${1:-}" = "--deps-only" ] && exit 0
scripts/build.sh
[ "${1:-}" = "--no-run" ] && exit 0
exec build/tools/tilec/tilec selftest kernels
