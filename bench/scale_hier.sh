#!/usr/bin/env bash
# Scale of the hierarchical all-reduce (docs/benchmarks.md, "At scale"):
# allreduce_hier_ring of 16 MiB per rank on configs/a3-cluster-roce.yaml
# with super-nodes of 1024 dies (interconnect.levels.2.fanout=64), so that
# its server steps are meshes among 1024 ranks; timing-only, reservation
# timing, at each rank count given (whole super-nodes above 1024: the
# simulator refuses others). One markdown row
# each: simulated time, wall time, events, peak RSS and wall time per event.
#
# Usage: bash bench/scale_hier.sh [P...]   (default: 1024 2048 4096)
#   The build is bench/lib.sh's (BENCH_PGO=1, the default: Release with
#   profile feedback; BENCH_PGO=0: plain Release).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1024 2048 4096)
for p in "${ranks[@]}"; do
  [[ $p =~ ^[1-9][0-9]*$ ]] || {
    echo "usage: bash bench/scale_hier.sh [P...]: '$p' is not a rank count" >&2
    exit 2
  }
done
source bench/lib.sh # sim, tmp, bench_machine

bench_machine
echo
echo "| P | simulated ms | wall s | events | peak RSS MiB | wall us per event |"
echo "|---|---|---|---|---|---|"
for p in "${ranks[@]}"; do
  "$sim" run --algo allreduce_hier_ring --config configs/a3-cluster-roce.yaml \
    --set interconnect.levels.2.fanout=64 --ranks "$p" --size 16MiB --no-data --no-race-check \
    --set interconnect.timing=reservation --profile >"$tmp/out" 2>"$tmp/err" || {
    echo "scale_hier.sh: P=$p failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  }
  simt=$(sed -nE 's/^time ([0-9.]+) us.*/\1/p' "$tmp/out")
  prof=$(grep '^profile:' "$tmp/err")
  wall=$(sed -E 's/.*wall_s=([0-9.]+).*/\1/' <<<"$prof")
  events=$(sed -E 's/.*events=([0-9]+) .*/\1/' <<<"$prof")
  rss=$(sed -E 's/.*peak_rss_kb=([0-9]+).*/\1/' <<<"$prof")
  awk -v p="$p" -v t="$simt" -v w="$wall" -v e="$events" -v r="$rss" 'BEGIN {
    printf "| %d | %.3f | %s | %s | %d | %.2f |\n", p, t / 1000, w, e, r / 1024, w * 1e6 / e }'
done
