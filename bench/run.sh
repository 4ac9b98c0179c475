#!/usr/bin/env bash
# Fixed workloads for docs/benchmarks.md: builds Release into build-bench/ and
# prints one markdown row per workload (wall time, kernel activations = events,
# events/s, peak RSS), measured by the simulator itself (--profile).
# Usage: bash bench/run.sh            (about a minute on 2 cores)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DA2_TESTS=OFF >/dev/null
cmake --build build-bench -j"$(nproc)" >/dev/null
sim=./build-bench/a2a3sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

row() { # row NAME ARGS...: run a2a3sim with --profile, print a table row
  local name=$1
  shift
  local prof
  prof=$("$sim" run "$@" --profile 2>&1 >/dev/null | grep '^profile:')
  local wall events eps rss
  wall=$(sed -E 's/.*wall_s=([0-9.]+).*/\1/' <<<"$prof")
  events=$(sed -E 's/.*events=([0-9]+) .*/\1/' <<<"$prof")
  eps=$(sed -E 's/.*events_per_s=([0-9]+).*/\1/' <<<"$prof")
  rss=$(sed -E 's/.*peak_rss_kb=([0-9]+).*/\1/' <<<"$prof")
  local cmd="$*"
  printf '| %s | `a2a3sim run %s` | %s | %s | %s | %s |\n' "$name" "${cmd//$tmp\//}" "$wall" \
    "$events" "$eps" "$((rss / 1024))"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
  "$(free -g | awk '/Mem:/{print $2}') GiB; $(date -u +%Y-%m-%d)"
echo
echo "| workload | command | wall s | events | events/s | peak RSS MiB |"
echo "|---|---|---|---|---|---|"
row "two-phase 1 MiB P=8, with data (seed case)" --algo allreduce_two_phase --ranks 8 --size 1MiB
row "mesh 1 MiB P=8, with data" --algo allreduce_mesh --ranks 8 --size 1MiB
row "ring 1 MiB P=8, with data" --algo allreduce_ring --ranks 8 --size 1MiB
row "mesh 16 MiB P=8, 1 KiB packets, no trace" --algo allreduce_mesh --ranks 8 --size 16MiB \
  --set interconnect.packet_size=1KiB --no-race-check
row "same, with --trace (millions of events)" --algo allreduce_mesh --ranks 8 --size 16MiB \
  --set interconnect.packet_size=1KiB --no-race-check --trace "$tmp/t.json"
echo
echo "trace written: $(stat -c %s "$tmp/t.json") bytes, $(grep -o '"ph":"' "$tmp/t.json" | wc -l) events"
echo
echo "kernel alone (bench/kernel_bench.c):"
./build-bench/kernel_bench 1000 10000000
./build-bench/kernel_bench 16000 10000000
