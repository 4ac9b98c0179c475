#!/usr/bin/env bash
# Fixed workloads for docs/benchmarks.md: builds Release with profile
# feedback into build-bench-pgo/ (BENCH_PGO=0: plain Release, build-bench/) and
# prints one markdown row per run: simulated time, wall time, event-kernel
# activations (= events), events/s and peak RSS, all measured by the simulator
# itself (--profile; simulated time from its report).
#
# Usage: bash bench/run.sh [quick|full]
#   quick (default): everything that takes seconds (about 3 minutes on 2 cores)
#   full:            also the long runs (ring P=4096, packet timing at P=1024
#                    and mesh P=256 with packet timing; about 30 minutes)
# Wall times need an idle machine: other jobs on the cores inflate them (and a
# shared VM varies by tens of percent from minute to minute): BENCH_REPEAT=3
# runs each row three times and keeps the fastest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mode=${1:-quick}
case $mode in
quick | full) ;;
*)
  echo "usage: bash bench/run.sh [quick|full]" >&2
  exit 2
  ;;
esac
source bench/lib.sh # sim, bdir, build, tmp, row, header, bench_machine

cluster() { # cluster P: the a2-cluster config sized for P ranks, timing-only
  echo "$(a2_cluster "$1")" --no-data --no-race-check
}

echo "$(bench_machine); mode $mode"

header "Seed case (functional, with data)"
for t in packet reservation; do
  row "two-phase 1 MiB P=8, $t" --algo allreduce_two_phase --ranks 8 --size 1MiB \
    --set interconnect.timing=$t
done

header "Fused GEMM + all-reduce (pto-isa gemm_ar, 8 ranks x (24 cube + 24 vector cores), timing-only)"
for m in 1 0; do
  row "gemm_ar fused, overlap=$m" --program traces/fidelity/gemm_ar_fused.a2t --ranks 8 \
    --no-data --param overlap=$m
done

header "Ring all-reduce 16 MiB, timing-only, configs/a2-cluster.yaml"
for p in 64 256 1024 4096; do
  for t in reservation packet; do
    if [ "$mode" = quick ] && { [ "$p" = 4096 ] || { [ "$p" = 1024 ] && [ $t = packet ]; }; }; then
      continue
    fi
    [ "$p" = 4096 ] && [ $t = packet ] && continue # hours: see docs/benchmarks.md
    # shellcheck disable=SC2046
    row "ring P=$p, $t" --algo allreduce_ring --size 16MiB $(cluster "$p") \
      --set interconnect.timing=$t
  done
done

header "Mesh all-reduce 1 MiB, timing-only, configs/a2-cluster.yaml: packet size"
for p in 64 256; do
  for t in reservation packet; do
    [ "$mode" = quick ] && [ "$p" = 256 ] && [ $t = packet ] && continue
    for k in 4KiB 16KiB 64KiB; do
      # shellcheck disable=SC2046
      row "mesh P=$p, $t, $k packets" --algo allreduce_mesh --size 1MiB $(cluster "$p") \
        --set interconnect.timing=$t --set interconnect.packet_size=$k
    done
  done
done

header "Timeline cost (mesh 16 MiB P=8, 1 KiB packets, packet timing)"
row "no timeline" --algo allreduce_mesh --ranks 8 --size 16MiB --set interconnect.packet_size=1KiB \
  --no-race-check
row "with --timeline" --algo allreduce_mesh --ranks 8 --size 16MiB \
  --set interconnect.packet_size=1KiB --no-race-check --timeline "$tmp/t.json"
echo
echo "timeline written: $(stat -c %s "$tmp/t.json") bytes, $(grep -o '"ph":"' "$tmp/t.json" | wc -l) events"
echo
echo "Event kernel alone (bench/kernel_bench.c: every process re-wakes itself 1-7 ps later):"
echo
"./$bdir/kernel_bench" 1000 10000000
"./$bdir/kernel_bench" 16000 10000000
