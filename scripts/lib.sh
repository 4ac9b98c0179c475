#!/usr/bin/env bash
# Helpers shared by the scripts and bench/run.sh (sourced; installs nothing).

# a2_build DIR [cmake args...]: configure Release (unless the args say
# otherwise) and build into DIR.
a2_build() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

# a2_cluster P: the arguments that run on configs/a2-cluster.yaml sized for
# P ranks (8-NPU servers over a switch).
a2_cluster() {
  echo --config configs/a2-cluster.yaml --set interconnect.ranks="$1" --ranks "$1"
}
