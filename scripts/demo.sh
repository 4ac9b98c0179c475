#!/usr/bin/env bash
# README command 1: install what is missing, build Release, run the demo:
# mesh and two-phase all-reduce at P=2 and P=4 on the default config.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
a2_build build
for algo in allreduce_mesh allreduce_two_phase; do
  for devs in 0,1 0,1,2,3; do
    echo "== a2a3sim run --algo $algo -d $devs"
    ./build/a2a3sim run --algo "$algo" -d "$devs"
    echo
  done
done
