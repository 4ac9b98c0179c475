#!/usr/bin/env bash
# Two timing modes side by side on the at-scale workloads of
# docs/benchmarks.md: each workload under mode A, then under mode B, in
# turn, BENCH_REPEAT times (default 2), so that both see the same machine;
# one markdown row per workload with each mode's simulated time and least
# wall time (the simulator's own --profile) and the ratio of B's wall time
# to A's. The speed half of "one at-scale mode" (docs/timing-model.md,
# "Reservation under contention") is this table with A = reservation; the
# fidelity half is bench/contention.sh.
#
# Usage: bash bench/modes.sh [MODE_A MODE_B]   (default: reservation ordered)
# Same build as bench/run.sh (BENCH_PGO=0: plain Release). Time: about a
# minute per repeat on 2 cores, plus the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
modes=(reservation ordered)
if [ $# -gt 0 ]; then
  if [ $# -ne 2 ]; then
    echo "usage: bash bench/modes.sh [MODE_A MODE_B]: two modes of interconnect.timing, or none" >&2
    exit 2
  fi
  modes=("$1" "$2")
fi
source bench/lib.sh # sim, tmp, repeat, run_profiled, faster, bench_machine, a2_cluster
for m in "${modes[@]}"; do
  "$sim" config check configs/a2-8p-hccs.yaml --set "interconnect.timing=$m" >/dev/null || exit 2
done
[ "${BENCH_REPEAT:-}" ] || repeat=2

hier() { # hier ALGO: the hierarchical all-reduce at P=1024 on A3 super-nodes over RoCE
  echo --algo "$1" --config configs/a3-cluster-roce.yaml --set interconnect.levels.2.fanout=64 \
    --ranks 1024 --size 16MiB
}
names=("ring P=1024" "mesh P=256" "mesh P=64" "hier P=1024" "hier3 P=1024" "mesh 24 cores 16 MiB")
workloads=(
  "--algo allreduce_ring --size 16MiB $(a2_cluster 1024)"
  "--algo allreduce_mesh --size 1MiB $(a2_cluster 256)"
  "--algo allreduce_mesh --size 1MiB $(a2_cluster 64)"
  "$(hier allreduce_hier_ring)"
  "$(hier allreduce_hier3_nhr)"
  "--algo allreduce_mesh --cores 24 --ranks 8 --dtype fp16 --size 16MiB"
)

bench_machine
echo
echo "| workload | command (plus \`--no-data --no-race-check --set interconnect.timing=MODE\`) | ${modes[0]} us / wall s | ${modes[1]} us / wall s | wall ${modes[1]} / ${modes[0]} |"
echo "|---|---|---|---|---|"
for i in "${!workloads[@]}"; do
  read -r -a argv <<<"${workloads[$i]}"
  best=("" "") simt=("?" "?") # per mode: least wall time, simulated time
  for ((r = 0; r < repeat; r++)); do
    for m in 0 1; do # the modes in turn
      run_profiled "${argv[@]}" --no-data --no-race-check --set "interconnect.timing=${modes[$m]}"
      simt[m]=${run_us:-?}
      if faster "$run_wall" "${best[m]}"; then best[m]=$run_wall; fi
    done
  done
  ratio="?"
  [ -n "${best[0]}" ] && [ -n "${best[1]}" ] && ratio=$(awk "BEGIN{printf \"%.2f\", ${best[1]} / ${best[0]}}")
  # shellcheck disable=SC2016 # backticks are markdown
  printf '| %s | `a2a3sim run %s` | %s / %s | %s / %s | %s |\n' "${names[$i]}" "${workloads[$i]}" \
    "${simt[0]}" "${best[0]:-?}" "${simt[1]}" "${best[1]:-?}" "$ratio"
done
