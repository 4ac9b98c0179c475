#!/usr/bin/env bash
# The contention table of docs/timing-model.md ("Reservation under
# contention"): every case of bench/contention.cases under packet,
# reservation and ordered timing (timing-only), one markdown row each: the
# case's label, packet timing's simulated time in us, and each other mode's
# time with its ratio to packet timing ("within 5 %" where it is).
#
# Usage: bash bench/contention.sh [--write] [BINARY] [-- RUN-FLAGS...]
#   --write     also replace the table in docs/timing-model.md (the lines
#               between "<!-- begin generated: contention" and
#               "<!-- end generated: contention -->")
#   BINARY      default build/a2a3sim (built first if missing)
#   RUN-FLAGS   appended to every run, e.g. -- --set chip.hbm.bandwidth=16TB/s
#               (a what-if; not with --write)
# Time: about 20 s on 2 idle cores. Exit status: 0, or 2 when a run fails
# (nothing is written then).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
write=0
sim=""
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --write) write=1 ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "contention: unknown flag $1 (expected --write, BINARY or -- RUN-FLAGS)" >&2; exit 2 ;;
    *) sim=$1 ;;
  esac
  shift
done
if [ "$write" = 1 ] && [ ${#extra[@]} -gt 0 ]; then
  echo "contention: --write with RUN-FLAGS would put a what-if in the docs" >&2
  exit 2
fi
source scripts/lib.sh # a2_sim_or_build, a2_three_timings, a2_replace_block
sim=$(a2_sim_or_build contention "$sim") || exit 2

rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
echo "| case | packet us | reservation | ordered |" >"$rows"
echo "|---|---|---|---|" >>"$rows"
while IFS= read -r line; do
  case $line in '#'* | '') continue ;; esac
  label=$(awk -F ' [|] ' '{print $2}' <<<"$line")
  args=$(awk -F ' [|] ' '{print $5}' <<<"$line")
  args=${args//\{src\}/$PWD}
  read -r -a argv <<<"$args"
  t=$(a2_three_timings contention "$sim" "${argv[@]}" "${extra[@]}") || exit 2
  read -r -a t <<<"$t"
  python3 - "$label" "${t[@]}" >>"$rows" <<'EOF'
import sys
label, p, r, o = sys.argv[1], *map(int, sys.argv[2:])
def cell(t):
    q = t / p
    return f"{t / 1e6:.3f} ({q:.3f}{', within 5 %' if abs(q - 1) <= 0.05 else ''})"
print(f"| {label} | {p / 1e6:.3f} | {cell(r)} | {cell(o)} |")
EOF
done <bench/contention.cases
cat "$rows"
if [ "$write" = 1 ]; then
  a2_replace_block docs/timing-model.md contention "$rows" || {
    echo "contention: docs/timing-model.md has no generated block \"contention\"" >&2
    exit 2
  }
fi
