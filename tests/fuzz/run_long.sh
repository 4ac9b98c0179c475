#!/usr/bin/env bash
# A long libFuzzer run of one harness (docs/robustness.md, "Reproducing"):
#   tests/fuzz/run_long.sh HARNESS SECONDS [extra libFuzzer flags...]
# HARNESS is config, set or trace; the harnesses must be built in build-fuzz/
# (scripts/fuzz_smoke.sh does it). The run uses -jobs=1 and the harness's
# limits (tests/fuzz/limits.sh: a slow input is a finding like a crash);
# libFuzzer stops at its first finding, so this loop
# saves the finding and starts again with the time that is left, until
# SECONDS have passed. New inputs go to build-fuzz/long/HARNESS/work (the
# committed corpus tests/fuzz/corpus/HARNESS is read, never written);
# findings to build-fuzz/long/HARNESS/artifacts; a summary to
# build-fuzz/long/HARNESS/summary.txt.
set -uo pipefail
h=$1
total=$2
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/fuzz/limits.sh
source "$root/tests/fuzz/limits.sh"
read -r -a limits <<<"$(a2_fuzz_limits "$h")"
[ ${#limits[@]} -gt 0 ] || {
  echo "run_long: unknown harness '$h' (config, set or trace)" >&2
  exit 2
}
bin=$root/build-fuzz/fuzz_$h
dir=$root/build-fuzz/long/$h
mkdir -p "$dir/work" "$dir/artifacts"
cd "$dir" || exit 2
start=$(date +%s)
segment=0
execs=0
findings=0
: >"$dir/all.log"
while :; do
  left=$((total - ($(date +%s) - start)))
  [ "$left" -lt 5 ] && break
  segment=$((segment + 1))
  rm -f fuzz-0.log
  nice -n 10 "$bin" -jobs=1 -max_total_time="$left" "${limits[@]}" \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$@" \
    work "$root/tests/fuzz/corpus/$h" >/dev/null 2>&1
  cat fuzz-0.log >>"$dir/all.log" 2>/dev/null
  n=$(grep -o 'stat::number_of_executed_units: [0-9]*' fuzz-0.log | tail -1 | grep -o '[0-9]*$')
  if [ -z "$n" ]; then # a finding ends the run before the final stats: take the last status line
    n=$(grep -o '^#[0-9]*' fuzz-0.log | tail -1 | tr -d '#')
  fi
  execs=$((execs + ${n:-0}))
  if grep -q '^SUMMARY\|ERROR: libFuzzer\|ERROR: AddressSanitizer\|==ERROR' fuzz-0.log; then
    findings=$((findings + 1))
    echo "segment $segment: finding: $(grep -m1 '^SUMMARY\|ERROR:' fuzz-0.log)" >>"$dir/all.log"
  fi
done
wall=$(($(date +%s) - start))
{
  echo "harness: fuzz_$h"
  echo "wall seconds: $wall"
  echo "segments: $segment"
  echo "executions: $execs"
  echo "findings (segments ended by a crash, leak, timeout or OOM): $findings"
  echo "work corpus: $(ls work | wc -l) inputs"
  echo "artifacts:"
  ls -la artifacts
} | tee "$dir/summary.txt"
