#!/usr/bin/env bash
# Check that two a2a3sim binaries give byte-identical outputs (stdout,
# stderr, exit code, timeline) on a fixed set of runs: every built-in
# collective on the three shipped configs, both timings, with and without
# data, JSON and text. scripts/test.sh runs it on the Release build and the
# profile-feedback build (scripts/build_pgo.sh), which must differ only in
# speed.
#
# Usage: bash scripts/same_outputs.sh A B
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# = 2 ] || {
  echo "usage: bash scripts/same_outputs.sh A B (two a2a3sim binaries)" >&2
  exit 2
}
a=$1 b=$2
for bin in "$a" "$b"; do
  [ -x "$bin" ] || {
    echo "same_outputs: $bin: not an executable a2a3sim" >&2
    exit 2
  }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

runs=0 differ=0 ok=0
one() { # one ARGS...: run both binaries, compare everything they produce
  local v bin
  for v in a b; do
    bin=$a
    [ $v = b ] && bin=$b
    # --profile is left out: its wall time is the one thing that may differ
    set +e
    "$bin" run "$@" --timeline "$tmp/$v.timeline.json" >"$tmp/$v.out" 2>"$tmp/$v.err"
    echo "exit $?" >>"$tmp/$v.out"
    set -e
  done
  runs=$((runs + 1))
  [ "$(tail -n1 "$tmp/a.out")" = "exit 0" ] && ok=$((ok + 1))
  if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err" ||
    ! cmp -s "$tmp/a.timeline.json" "$tmp/b.timeline.json"; then
    echo "DIFFERENT: a2a3sim run $*" >&2
    differ=$((differ + 1))
  fi
}

algos=$("$a" list | awk '/^[a-z]/{print $1}')
[ -n "$algos" ] || {
  echo "same_outputs: no collectives listed by $a" >&2
  exit 1
}
for algo in $algos; do
  small=96KiB large=1MiB
  # the GEMM built-ins' --size is the GEMM's M, a multiple of 128 rows
  # (allgather_gemm's golden check grows as P^2 M K N: the smallest M)
  case $algo in
  gemm | gemm_allreduce) small=256 large=1024 ;;
  allgather_gemm) small=128 large=1024 ;;
  esac
  for cfg in "" "--config configs/a2-cluster.yaml --set interconnect.ranks=16" \
    "--config configs/a3-supernode.yaml --set interconnect.ranks=16"; do
    p=8
    [ -n "$cfg" ] && p=16
    for t in packet reservation; do
      # shellcheck disable=SC2086
      one --algo "$algo" --ranks $p --size $small $cfg --set interconnect.timing=$t
      # shellcheck disable=SC2086
      one --algo "$algo" --ranks $p --size $large $cfg --set interconnect.timing=$t --no-data --json
    done
  done
done
echo "same_outputs: $runs runs ($ok of them exit 0), $differ differ"
[ "$differ" = 0 ]
