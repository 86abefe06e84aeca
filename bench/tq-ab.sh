#!/usr/bin/env bash
# A/B timing of TurboQuant stage-1 builds on the GPU machine, in one device call:
#   bash .carry/gpu/tq-ab.sh VARIANT...      (after tar -xJf .carry/payload.tar.xz -C .carry)
# `.carry/gpu` is the base (scripts/gpu-artifacts.sh), each VARIANT a directory
# of it made by scripts/tq-variant.sh. Checks the base on every formulation
# (unless SKIP_BASE_CHECK=1) and each variant on formulation 2, side by side, then times base
# and variants alternating, twice, at the shapes S (default: the goal shapes
# at B x seq_len >= 32 x 8192). Writes NAME-check.txt, NAME-bench{1,2}.txt,
# packed into $OUT/tq-ab.tar.xz (a device call returns at most 8 files);
# bench/tq-ab.py tabulates them.
set -u
S=${S:-k4v4:8:32768,k4v4:32:8192,k4v4:128:32768,k3v4:32:8192,k3v4:128:32768,k8v4:32:8192,k8v4:32:32768,k8v4:128:8192,k8v4:128:32768}
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# The checks run side by side (they are mostly the host's reference).
if [ -z "${SKIP_BASE_CHECK:-}" ]; then
  timeout 200 ./tq-gpu . --check-only >"$OUT/base-check.txt" 2>&1 &
fi
for v in "$@"; do
  (cd "$v" && timeout 150 ./tq-gpu . --formulation 2 --check-only >"$OUT/$v-check.txt" 2>&1) &
done
wait
for f in "$OUT"/*-check.txt; do
  echo "== $(basename "$f")"; tail -n 1 "$f"
done
for rep in 1 2; do
  for v in . "$@"; do
    n=$([ "$v" = . ] && echo base || echo "$v")
    (cd "$v" && timeout 100 ./tq-gpu . --formulation 2 --bench-only --shape "$S" \
       >"$OUT/$n-bench$rep.txt" 2>&1; echo "$n bench$rep rc $?")
  done
done
tar -C "$OUT" -cJf "$OUT/tq-ab.tar.xz" $(cd "$OUT" && ls *-check.txt *-bench?.txt 2>/dev/null) &&
  (cd "$OUT" && rm -f ./*-check.txt ./*-bench?.txt)
