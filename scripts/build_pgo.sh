#!/usr/bin/env bash
# Build a Release a2a3sim with GCC profile feedback (PGO) into DIR (default
# build-pgo/): an instrumented build, a fixed set of training runs, then the
# same tree rebuilt with their counts (-DA2_PGO=use). Outputs are those of the
# plain Release build, byte for byte; only the speed differs
# (docs/benchmarks.md, "Profile feedback"). About two minutes on 2 cores.
#
# Usage: bash scripts/build_pgo.sh [DIR]
#
# The training runs are smaller than the benchmarks' and use other sizes, so
# the benchmarks measure code that was not trained on their own inputs; the
# ring's chunks are those of the benchmarks' ring at P=4096, 2048 and 1024
# (4, 8 and 16 KiB: one, two and four packets a transfer).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=${1:-build-pgo}

# Counts from an earlier training (or older sources) must not be merged in:
# GCC adds a run's counts to existing .gcda files and refuses stale ones.
if [ -d "$dir" ]; then find "$dir" -name '*.gcda' -delete; fi

source scripts/lib.sh # a2_build, a2_cluster
a2_build "$dir" -DA2_TESTS=OFF -DA2_PGO=generate >/dev/null

sim=$dir/a2a3sim
train() {
  echo "pgo: training: a2a3sim run $*" >&2
  "$sim" run "$@" >/dev/null
}
# shellcheck disable=SC2046
{
  for pc in 256:1MiB 512:4MiB 128:2MiB; do
    train --algo allreduce_ring --size "${pc#*:}" $(a2_cluster "${pc%:*}") --no-data --no-race-check \
      --set interconnect.timing=reservation
  done
  train --algo allreduce_mesh --size 1MiB $(a2_cluster 64) --no-data --no-race-check \
    --set interconnect.timing=reservation
  train --algo allreduce_ring --size 1MiB $(a2_cluster 32)
  train --algo allreduce_mesh --size 256KiB $(a2_cluster 16) --set interconnect.timing=reservation
  train --algo allreduce_two_phase --ranks 8 --size 1MiB
  train --algo all_to_all --ranks 16 --size 256KiB --config configs/a3-supernode.yaml \
    --set interconnect.ranks=16
  train --algo allreduce_ring --ranks 8 --size 64KiB --timeline "$dir/pgo-timeline.json" --json
}
rm -f "$dir/pgo-timeline.json"
"$dir/kernel_bench" 1000 2000000 >/dev/null

a2_build "$dir" -DA2_PGO=use >/dev/null
echo "pgo: built $sim with profile feedback" >&2
