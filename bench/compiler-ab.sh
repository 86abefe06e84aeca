#!/usr/bin/env bash
# A/B of a compiler change on the norms and the MQA kernels, in one device call:
#   bash bench/compiler-ab.sh VARIANT_PAYLOAD
# The base is .carry/payload.tar.xz (scripts/gpu-artifacts.sh), the variant a second
# payload packed by the changed compiler (PAYLOAD=FILE scripts/gpu-artifacts.sh). Checks
# the variant (norm-gpu on every core, layout-gpu, mqa-gpu, tq-gpu), then times base and
# variant alternating, twice: norm-gpu --time-only and mqa-gpu, or what AB_TIME names of
# "norm mqa tq" (tq: tq-gpu --formulation 2 --bench-only at the shapes TQ_SHAPES, by default
# the TurboQuant goal shapes of k4v4, k3v4 and k8v4 at 32 x 8192 and 8 x 32768). Writes
# NAME-*.txt packed into $OUT/compiler-ab.tar.xz; bench/compiler-ab.py tabulates them.
set -u
variant=$1
parts=${AB_TIME:-norm mqa}
shapes=${TQ_SHAPES:-k4v4:32:8192,k4v4:8:32768,k3v4:32:8192,k8v4:32:8192,k8v4:8:32768}
for p in $parts; do
  case $p in
  norm | mqa | tq) ;;
  *) echo "compiler-ab.sh: AB_TIME part '$p' is not norm, mqa or tq"; exit 2 ;;
  esac
done
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
    for p in $parts; do
      case $p in
      norm) timeout 150 "$d/norm-gpu" "$d" --time-only >"$OUT/$n-norm$rep.txt" 2>&1 ;;
      mqa) timeout 150 "$d/mqa-gpu" "$d" >"$OUT/$n-mqa$rep.txt" 2>&1 ;;
      tq) (cd "$d" && timeout 150 ./tq-gpu . --formulation 2 --bench-only --shape "$shapes") \
        >"$OUT/$n-tq$rep.txt" 2>&1 ;;
      esac
      echo "$n $p$rep rc $?"
    done
  done
done
tar -C "$OUT" -cJf "$OUT/compiler-ab.tar.xz" $(cd "$OUT" && ls ./*.txt) && (cd "$OUT" && rm -f ./*.txt)
