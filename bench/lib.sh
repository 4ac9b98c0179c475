# shellcheck shell=bash
# Shared by bench/run.sh and bench/scale.sh: the build measured and one
# markdown row per run from the simulator's own --profile line.
# Sourced from the repository root; sets sim, bdir, build, tmp (removed on exit).
source scripts/lib.sh # a2_build, a2_cluster
# BENCH_PGO=1 (default): Release with GCC profile feedback
# (scripts/build_pgo.sh, build-bench-pgo/), the build docs/benchmarks.md
# recommends for large runs; BENCH_PGO=0: the plain Release build (build-bench/).
if [ "${BENCH_PGO:-1}" = 1 ]; then
  bdir="build-bench-pgo"
  build="Release + profile feedback (scripts/build_pgo.sh)"
  bash scripts/build_pgo.sh "$bdir" # its progress goes to stderr
else
  bdir="build-bench"
  build="Release"
  a2_build "$bdir" -DA2_TESTS=OFF >/dev/null
fi
sim=./$bdir/a2a3sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

repeat=${BENCH_REPEAT:-1} # runs per row; the row shows the one with the least wall time

# run_profiled ARGS...: one `a2a3sim run ARGS --profile`; sets run_us (the
# report's simulated time, us), run_wall (wall s) and run_prof (the profile
# line), each empty when the run gave none.
run_profiled() {
  "$sim" run "$@" --profile >"$tmp/out" 2>"$tmp/err" || true
  run_us=$(sed -nE 's/^time ([0-9.]+) us.*/\1/p' "$tmp/out")
  run_prof=$(grep '^profile:' "$tmp/err" || true)
  run_wall=$(sed -nE 's/.*wall_s=([0-9.]+).*/\1/p' <<<"$run_prof")
}

# faster WALL BEST: whether WALL is a time and less than BEST (or BEST is empty)
faster() { [ -n "$1" ] && { [ -z "$2" ] || awk "BEGIN{exit !($1 < $2)}"; }; }

row() { # row NAME ARGS...: run a2a3sim with --profile, print a table row
  local name=$1
  shift
  local prof="" simt="" best="" i
  for ((i = 0; i < repeat; i++)); do
    run_profiled "$@"
    if faster "$run_wall" "$best"; then
      best=$run_wall
      prof=$run_prof
      simt=$run_us
    fi
  done
  [ -n "$prof" ] || prof="profile: failed"
  local wall events eps rss
  wall=$(sed -E 's/.*wall_s=([0-9.]+).*/\1/' <<<"$prof")
  events=$(sed -E 's/.*events=([0-9]+) .*/\1/' <<<"$prof")
  eps=$(sed -E 's/.*events_per_s=([0-9]+).*/\1/' <<<"$prof")
  rss=$(sed -E 's/.*peak_rss_kb=([0-9]+).*/\1/' <<<"$prof")
  local cmd="$*"
  # shellcheck disable=SC2016 # backticks are markdown
  printf '| %s | `a2a3sim run %s` | %s | %s | %s | %s | %s |\n' "$name" "${cmd//$tmp\//}" \
    "${simt:-?}" "$wall" "$events" "$eps" "$((${rss:-0} / 1024))"
}

header() {
  echo
  echo "$1"
  echo
  echo "| workload | command | simulated us | wall s | events | events/s | peak RSS MiB |"
  echo "|---|---|---|---|---|---|---|"
}

bench_machine() { # the line every table's figures carry: machine, date, build, commit
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
    "$(free -g | awk '/Mem:/{print $2}') GiB; load $(cut -d' ' -f1-3 /proc/loadavg);"\
    "$(date -u +%Y-%m-%d); build $build; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
}
