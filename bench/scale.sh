#!/usr/bin/env bash
# Scale (docs/benchmarks.md, the "at scale" tables): an all-reduce of 16 MiB per rank,
# timing-only, reservation timing, at each rank count given; one markdown
# row each: simulated time, wall time, events, peak RSS and the wall time
# per unit of work, the figure that stays flat when wall time grows
# linearly in the work. The workload:
#   ring (default)  allreduce_ring on configs/a2-cluster.yaml; per rank-step
#                   (P ranks x 2(P-1) steps), in ns
#   hier            allreduce_hier_ring on configs/a3-cluster-roce.yaml with
#                   super-nodes of 1024 dies (interconnect.levels.2.fanout=64),
#                   so that its server steps are meshes among 1024 ranks
#                   (whole super-nodes above 1024: the simulator refuses
#                   others); per event, in us
#   hier3           allreduce_hier3_nhr on the same config: servers of 16 dies
#                   (the A3 node), NHR among the 64 servers of a super-node,
#                   RHD among the super-nodes; per event, in us
#
# Usage: bash bench/scale.sh [ring|hier|hier3] [P...]   (default: ring 1024 2048 4096)
#   The ring at P=16384 takes minutes and about 2.5 GiB. The build is
#   bench/lib.sh's (BENCH_PGO=1, the default: Release with profile feedback;
#   BENCH_PGO=0: plain Release).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
workload=ring
case "${1:-}" in ring | hier | hier3)
  workload=$1
  shift
  ;;
esac
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1024 2048 4096)
for p in "${ranks[@]}"; do
  [[ $p =~ ^[1-9][0-9]*$ ]] || {
    echo "usage: bash bench/scale.sh [ring|hier|hier3] [P...]: '$p' is not a rank count" >&2
    exit 2
  }
done
source bench/lib.sh # sim, tmp, bench_machine

# the run's arguments at P ranks; the unit of work: its name, awk formula and format
if [ "$workload" = ring ]; then
  args() { echo --algo allreduce_ring $(a2_cluster "$1"); }
  unit="wall ns per rank-step"
  per='w * 1e9 / (p * 2 * (p - 1))'
  fmt=%.0f
else
  algo=allreduce_hier_ring
  [ "$workload" = hier3 ] && algo=allreduce_hier3_nhr
  args() {
    echo --algo "$algo" --config configs/a3-cluster-roce.yaml \
      --set interconnect.levels.2.fanout=64 --ranks "$1"
  }
  unit="wall us per event"
  per='w * 1e6 / e'
  fmt=%.2f
fi

bench_machine
echo
echo "| P | simulated ms | wall s | events | peak RSS MiB | $unit |"
echo "|---|---|---|---|---|---|"
for p in "${ranks[@]}"; do
  # shellcheck disable=SC2046
  "$sim" run $(args "$p") --size 16MiB --no-data --no-race-check \
    --set interconnect.timing=reservation --profile >"$tmp/out" 2>"$tmp/err" || {
    echo "scale.sh: $workload P=$p failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  }
  simt=$(sed -nE 's/^time ([0-9.]+) us.*/\1/p' "$tmp/out")
  prof=$(grep '^profile:' "$tmp/err")
  wall=$(sed -E 's/.*wall_s=([0-9.]+).*/\1/' <<<"$prof")
  events=$(sed -E 's/.*events=([0-9]+) .*/\1/' <<<"$prof")
  rss=$(sed -E 's/.*peak_rss_kb=([0-9]+).*/\1/' <<<"$prof")
  awk -v p="$p" -v t="$simt" -v w="$wall" -v e="$events" -v r="$rss" "BEGIN {
    printf \"| %d | %.3f | %s | %s | %d | $fmt |\\n\", p, t / 1000, w, e, r / 1024, $per }"
done
