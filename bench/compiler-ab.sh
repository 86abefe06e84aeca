#!/usr/bin/env bash
# A/B of a compiler change on the norms and the MQA kernels, in one device call:
#   bash bench/compiler-ab.sh VARIANT_PAYLOAD
# The base is .carry/payload.tar.xz (scripts/gpu-artifacts.sh), the variant a second
# payload packed by the changed compiler (PAYLOAD=FILE scripts/gpu-artifacts.sh). Checks
# the variant (norm-gpu on every core, layout-gpu, mqa-gpu, tq-gpu), then times base and
# variant alternating, twice: norm-gpu --time-only and mqa-gpu. Writes NAME-*.txt packed
# into $OUT/compiler-ab.tar.xz; bench/compiler-ab.py tabulates them.
set -u
variant=$1
root=$(pwd)
base="$root/.carry/gpu"
vdir=$(mktemp -d)
tar -xJf .carry/payload.tar.xz -C .carry && tar -xJf "$variant" -C "$vdir" || exit 2
v="$vdir/gpu"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
shards=$(nproc)
for i in $(seq 0 $((shards - 1))); do
  timeout 200 "$v/norm-gpu" "$v" --check-only --shard "$i/$shards" >"$OUT/v-norm-check-$i.txt" 2>&1 &
done
timeout 200 "$v/layout-gpu" "$v/layouts" >"$OUT/v-layout-check.txt" 2>&1 &
(cd "$v" && timeout 200 ./tq-gpu . --formulation 2 --check-only >"$OUT/v-tq-check.txt" 2>&1) &
wait
cat "$OUT"/v-norm-check-*.txt >"$OUT/v-norm-check.txt" && rm -f "$OUT"/v-norm-check-*.txt
for f in v-norm-check v-layout-check v-tq-check; do
  echo "== $f"; grep -E "checks:|failures|failed" "$OUT/$f.txt" | tail -n 3
done
for rep in 1 2; do
  for n in base v; do
    d=$([ $n = base ] && echo "$base" || echo "$v")
    timeout 150 "$d/norm-gpu" "$d" --time-only >"$OUT/$n-norm$rep.txt" 2>&1; echo "$n norm$rep rc $?"
    timeout 150 "$d/mqa-gpu" "$d" >"$OUT/$n-mqa$rep.txt" 2>&1; echo "$n mqa$rep rc $?"
  done
done
tar -C "$OUT" -cJf "$OUT/compiler-ab.tar.xz" $(cd "$OUT" && ls ./*.txt) && (cd "$OUT" && rm -f ./*.txt)
