#!/usr/bin/env bash
# The race check's cost (docs/benchmarks.md, "Race checking"): the many-core
# mesh all-reduce (allreduce_mesh --cores 24 --ranks 8 --dtype fp16
# --no-data) at 1, 2, 4 and 16 MiB under both network timings, each run with
# the check (the default) and with --no-race-check. Prints one markdown row
# per size and timing: wall time with and without the check (the simulator's
# own --profile figure) and their ratio.
#
# Usage: bash bench/race.sh [A2A3SIM]
#   A2A3SIM: the binary to measure (default: a Release build in build-bench/)
# The two runs of a pair alternate, BENCH_REPEAT times (default 3), and each
# keeps its fastest: a shared machine's speed varies from minute to minute.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh # a2_build
if [ $# -ge 1 ]; then
  sim=$1
else
  a2_build build-bench -DA2_TESTS=OFF >/dev/null
  sim=./build-bench/a2a3sim
fi
[ -x "$sim" ] || {
  echo "race.sh: $sim: not an executable a2a3sim" >&2
  exit 2
}
repeat=${BENCH_REPEAT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

wall() { # wall ARGS...: one run's --profile wall time in seconds
  "$sim" run "$@" --profile >/dev/null 2>"$tmp/err" || {
    echo "race.sh: a2a3sim run $* failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  }
  sed -nE 's/^profile: wall_s=([0-9.]+).*/\1/p' "$tmp/err"
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //');"\
  "$(date -u +%Y-%m-%d); best of $repeat; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "| size | timing | wall s with the check | wall s with \`--no-race-check\` | ratio |"
echo "|---|---|---|---|---|"
for size in 1MiB 2MiB 4MiB 16MiB; do
  for timing in packet reservation; do
    args=(--algo allreduce_mesh --cores 24 --ranks 8 --dtype fp16 --no-data --size "$size"
      --set "interconnect.timing=$timing")
    with="" without=""
    for ((i = 0; i < repeat; i++)); do
      with=$(min "$with" "$(wall "${args[@]}")")
      without=$(min "$without" "$(wall "${args[@]}" --no-race-check)")
    done
    ratio=$(awk -v a="$with" -v b="$without" 'BEGIN { printf "%.2f", a / b }')
    echo "| ${size/MiB/ MiB} | $timing | $with | $without | $ratio |"
  done
done
echo
echo "command: \`a2a3sim run --algo allreduce_mesh --cores 24 --ranks 8 --dtype fp16 --no-data"\
  "--size SIZE --set interconnect.timing=TIMING --profile\` (and with \`--no-race-check\`)"
