#!/usr/bin/env bash
# Held-out cases of docs/timing-model.md ("Held-out cases"): sweeps that no
# choice of how reservation timing reserves was measured on, each case under
# packet, reservation and ordered timing (timing-only). One markdown row per
# case (packet timing's simulated time in us, each other mode's ratio to it)
# and, per set, a summary row: the mean and the worst |ratio - 1| and how
# many cases are within 5 %.
#
# Usage: bash bench/heldout.sh [BINARY] [SET...]
#   BINARY  default build/a2a3sim (built first if missing)
#   SET     cores      the multi-core mesh on the full mesh, P=8 (and P=2, 4)
#           two-level  the mesh, 1-16 cores a rank, 256 KiB-4 MiB, P=16, on
#                      the four two-level configs (60 cases)
#           two-phase  the two-phase all-reduce, 1-24 cores a rank, P=8
#           relays     meshes, ring and two-phase all-reduces on rings and
#                      tori (configs/ring-8.yaml, configs/torus-4x4.yaml,
#                      and an 8x8 torus), where `ordered` serves remote
#                      loads in order of arrival
#           switches   across switches: the mesh of 64 KiB with one core a
#                      rank on the a2 cluster at P=16-256, and the
#                      two-phase all-reduce, allgather and reduce_scatter
#                      with 2-8 cores a rank at P=16
#           puts       all_to_all (puts on the DMA queues), 1-8 cores a
#                      rank, on the a2 cluster, configs/a2-8p-hccs.yaml
#                      and the A3 super-node
#           copies     one rank's double-buffered copy
#                      (traces/examples/staged_copy.a2t), 1-8 cores, 2
#                      and 8 tiles a core: a core's own transfers at once
#           (default: all seven)
# Time: about 4 minutes on 2 idle cores for the first three, 15 s for relays,
# about a minute each for switches and puts, a second for copies. Exit
# status: 0, or 2 when a run fails or an argument is unknown.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sim=""
sets=()
for a in "$@"; do
  case $a in
    cores | two-level | two-phase | relays | switches | puts | copies) sets+=("$a") ;;
    -*) echo "heldout: unknown flag $a (expected BINARY or SET: cores, two-level, two-phase, relays, switches, puts, copies)" >&2; exit 2 ;;
    *)
      if [ -n "$sim" ]; then
        echo "heldout: unknown set $a (expected cores, two-level, two-phase, relays, switches, puts or copies)" >&2
        exit 2
      fi
      sim=$a
      ;;
  esac
done
[ ${#sets[@]} -gt 0 ] || sets=(cores two-level two-phase relays switches puts copies)
source scripts/lib.sh # a2_sim_or_build, a2_three_timings
sim=$(a2_sim_or_build heldout "$sim") || exit 2

# The cases of one set, one per line: a label, " | ", the arguments of
# `a2a3sim run`.
cases() {
  case $1 in
    cores)
      for c in 2 4 8 16 24; do
        echo "mesh 4 MiB, $c cores, P=8 | --algo allreduce_mesh --cores $c --ranks 8 --size 4MiB"
      done
      echo "mesh 16 MiB fp16, 12 cores, P=8 | --algo allreduce_mesh --cores 12 --ranks 8 --size 16MiB --dtype fp16"
      echo "mesh 1 MiB, 8 cores, P=2 | --algo allreduce_mesh --cores 8 --ranks 2 --size 1MiB"
      echo "mesh 4 MiB, 24 cores, P=4 | --algo allreduce_mesh --cores 24 --ranks 4 --size 4MiB"
      ;;
    two-level)
      for cfg in a2-cluster a2-cluster-levels a3-supernode a3-supernode-levels; do
        local ranks="" # the a2 clusters' size is a key of their own
        case $cfg in a2-*) ranks="--set interconnect.ranks=16" ;; esac
        for c in 1 2 4 8 16; do
          for sz in 256KiB 1MiB 4MiB; do
            echo "$cfg, mesh $sz, $c cores, P=16 | --algo allreduce_mesh --size $sz --cores $c --config configs/$cfg.yaml $ranks --ranks 16"
          done
        done
      done
      ;;
    two-phase)
      for c in 1 2 4 8 16 24; do
        echo "two-phase 4 MiB, $c cores, P=8 | --algo allreduce_two_phase --cores $c --ranks 8 --size 4MiB"
      done
      ;;
    relays)
      local ring="--config configs/ring-8.yaml --ranks 8" torus="--config configs/torus-4x4.yaml --ranks 16"
      echo "ring-8, mesh 1 MiB | --algo allreduce_mesh --size 1MiB $ring"
      echo "ring-8, mesh 256 KiB, 8 cores | --algo allreduce_mesh --size 256KiB --cores 8 $ring"
      echo "ring-8, ring 1 MiB | --algo allreduce_ring --size 1MiB $ring"
      echo "ring-8, two-phase 1 MiB | --algo allreduce_two_phase --size 1MiB $ring"
      echo "torus 4x4, mesh 1 MiB | --algo allreduce_mesh --size 1MiB $torus"
      echo "torus 4x4, mesh 256 KiB, 4 cores | --algo allreduce_mesh --size 256KiB --cores 4 $torus"
      echo "torus 4x4, ring 4 MiB | --algo allreduce_ring --size 4MiB $torus"
      echo "torus 4x4, two-phase 4 MiB, 4 cores | --algo allreduce_two_phase --size 4MiB --cores 4 $torus"
      echo "torus 8x8, mesh 1 MiB | --algo allreduce_mesh --size 1MiB --config configs/torus-4x4.yaml --set interconnect.ranks=64 --set interconnect.torus_width=8 --ranks 64"
      ;;
    switches)
      local a2c="--config configs/a2-cluster.yaml --set interconnect.ranks=16 --ranks 16"
      local a3="--config configs/a3-supernode.yaml --ranks 16"
      for p in 16 32 64 128 256; do
        echo "a2-cluster, mesh 64 KiB, 1 core, P=$p | --algo allreduce_mesh --size 64KiB --config configs/a2-cluster.yaml --set interconnect.ranks=$p --ranks $p"
      done
      for c in 2 4 8; do
        echo "a2-cluster, two-phase 4 MiB, $c cores, P=16 | --algo allreduce_two_phase --size 4MiB --cores $c $a2c"
        echo "a3-supernode, two-phase 4 MiB, $c cores, P=16 | --algo allreduce_two_phase --size 4MiB --cores $c $a3"
        echo "a2-cluster, allgather 1 MiB, $c cores, P=16 | --algo allgather --size 1MiB --cores $c $a2c"
        echo "a2-cluster, reduce_scatter 1 MiB, $c cores, P=16 | --algo reduce_scatter --size 1MiB --cores $c $a2c"
      done
      ;;
    puts)
      for c in 1 4 8; do
        local n="$c cores"
        [ "$c" = 1 ] && n="1 core"
        echo "a2-cluster, all_to_all 1 MiB, $n, P=16 | --algo all_to_all --size 1MiB --cores $c --config configs/a2-cluster.yaml --set interconnect.ranks=16 --ranks 16"
        echo "a2-8p-hccs, all_to_all 1 MiB, $n, P=8 | --algo all_to_all --size 1MiB --cores $c --config configs/a2-8p-hccs.yaml --ranks 8"
        echo "a3-supernode, all_to_all 1 MiB, $n, P=16 | --algo all_to_all --size 1MiB --cores $c --config configs/a3-supernode.yaml --ranks 16"
      done
      ;;
    copies)
      for c in 1 2 4 8; do
        local n="$c cores"
        [ "$c" = 1 ] && n="1 core"
        for p in 2 8; do
          echo "staged copy, $n, $p tiles a core | --program traces/examples/staged_copy.a2t --ranks 1 --param vcores=$c --param pairs=$p"
        done
      done
      ;;
  esac
}

rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for set in "${sets[@]}"; do
  : >"$rows"
  while IFS= read -r line; do
    label=${line%% | *}
    read -r -a argv <<<"${line#* | }"
    t=$(a2_three_timings heldout "$sim" "${argv[@]}") || exit 2
    echo "$label $t" >>"$rows"
  done < <(cases "$set")
  python3 - "$set" "$rows" <<'EOF'
import sys
name, path = sys.argv[1], sys.argv[2]
rows = []
for line in open(path):
    label, p, r, o = line.rsplit(" ", 3)
    rows.append((label, int(p), int(r), int(o)))
print(f"\n#### {name}\n")
print("| case | packet us | reservation | ordered |")
print("|---|---|---|---|")
for label, p, r, o in rows:
    print(f"| {label} | {p / 1e6:.3f} | {r / p:.3f} | {o / p:.3f} |")
def summary(k):
    e = [abs(x[k] / x[1] - 1) for x in rows]
    return f"mean {100 * sum(e) / len(e):.1f} %, worst {100 * max(e):.1f} %, {sum(v <= 0.05 for v in e)}/{len(e)} within 5 %"
print(f"| **{len(rows)} cases** | | {summary(2)} | {summary(3)} |")
EOF
done
