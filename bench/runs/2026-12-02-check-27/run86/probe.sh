set -u
tar -xJf .carry/payload.tar.xz -C .carry && mkdir -p /tmp/v && tar -xJf .carry/payload-v.tar.xz -C /tmp/v || exit 2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
timeout 200 bash .carry/gpu/tq-ncu.sh; echo "tq-ncu rc $?"
for d in .carry/gpu /tmp/v/gpu; do
  n=$([ $d = .carry/gpu ] && echo base || echo rot)
  (cd $d && timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max -k regex:rotate -c 2 ./tq-gpu . --formulation 2 --bench-only --shape k4v4:128:8192 > $OUT/ncu-rotate-$n.txt 2>&1); echo "$n rotate rc $?"
done
cd .carry/gpu
for rep in 1 2; do
  for o in "" --no-overlap; do
    timeout 100 ./tq-gpu . --formulation 2 --bench-only --shape k4v4:128:8192,k4v4:32:8192,k8v4:32:8192 $o > $OUT/overlap$o-$rep.txt 2>&1; echo "overlap$o $rep rc $?"
  done
done
