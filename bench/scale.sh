#!/usr/bin/env bash
# Scale (docs/benchmarks.md, "At scale"): the ring all-reduce of 16 MiB per
# rank on configs/a2-cluster.yaml, timing-only, reservation timing, at each
# rank count given; one markdown row each: simulated time, wall time, events,
# peak RSS and wall time per rank-step (P ranks x 2(P-1) steps), the figure
# that stays flat when wall time grows linearly in the work.
#
# Usage: bash bench/scale.sh [P...]   (default: 1024 2048 4096)
#   P=16384 takes minutes and about 2.5 GiB. The build is bench/lib.sh's
#   (BENCH_PGO=1, the default: Release with profile feedback).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1024 2048 4096)
for p in "${ranks[@]}"; do
  [[ $p =~ ^[1-9][0-9]*$ ]] || {
    echo "usage: bash bench/scale.sh [P...]: '$p' is not a rank count" >&2
    exit 2
  }
done
source bench/lib.sh # sim, tmp, bench_machine

bench_machine
echo
echo "| P | simulated ms | wall s | events | peak RSS MiB | wall ns per rank-step |"
echo "|---|---|---|---|---|---|"
for p in "${ranks[@]}"; do
  # shellcheck disable=SC2046
  "$sim" run --algo allreduce_ring --size 16MiB $(a2_cluster "$p") --no-data --no-race-check \
    --set interconnect.timing=reservation --profile >"$tmp/out" 2>"$tmp/err" || {
    echo "scale.sh: P=$p failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  }
  simt=$(sed -nE 's/^time ([0-9.]+) us.*/\1/p' "$tmp/out")
  prof=$(grep '^profile:' "$tmp/err")
  wall=$(sed -E 's/.*wall_s=([0-9.]+).*/\1/' <<<"$prof")
  events=$(sed -E 's/.*events=([0-9]+) .*/\1/' <<<"$prof")
  rss=$(sed -E 's/.*peak_rss_kb=([0-9]+).*/\1/' <<<"$prof")
  awk -v p="$p" -v t="$simt" -v w="$wall" -v e="$events" -v r="$rss" 'BEGIN {
    printf "| %d | %.3f | %s | %s | %d | %.0f |\n", p, t / 1000, w, e, r / 1024, w * 1e9 / (p * 2 * (p - 1)) }'
done
