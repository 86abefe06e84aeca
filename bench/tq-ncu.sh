#!/usr/bin/env bash
# Where TurboQuant's time goes outside stage 1's block loop, on the GPU machine
# in one device call (after tar -xJf .carry/payload.tar.xz -C .carry):
#   bash .carry/gpu/tq-ncu.sh            (S= picks the shape, default k8v4:32:8192;
#                                         FORM= the formulation, default 2)
# Profiles the first stage-1 and the first stage-2 launch of that shape (the
# group's HEADS, formulation 2: tq-gpu times HEADS = group first) with Nsight
# Compute: elapsed cycles against each SM's active cycles (min, mean, max: the
# launch ramp and the tail of one wave), DRAM bytes and throughput, warps
# resident a cycle, and the warp-state (stall) and scheduler sections. Writes
# $OUT/ncu-stage1.txt and $OUT/ncu-stage2.txt.
set -u
S=${S:-k8v4:32:8192}
cd "$(dirname "$0")"
metrics=gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg
metrics+=,sm__cycles_active.max,sm__ctas_launched.sum,smsp__warps_active.avg.per_cycle_active
metrics+=,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for stage in stage1 stage2; do
  timeout 240 ncu --metrics "$metrics" --section WarpStateStats --section SchedulerStats \
    -k "regex:turboquant_decode_$stage" -c 1 \
    ./tq-gpu . --formulation "${FORM:-2}" --bench-only --shape "$S" >"$OUT/ncu-$stage.txt" 2>&1
  echo "$stage: rc $?"
done
