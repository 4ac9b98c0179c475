#!/usr/bin/env bash
# Regenerate the generated blocks of docs/fidelity.md and docs/calibrate.md
# from `a2a3sim calibrate`; the prose around them is hand-written.
#
#   docs/fidelity.md   one table per configs/measured/*.csv (calibrate
#                      --markdown, with a hardware column from docs/sources.md's
#                      table of measurements): each row's source, hardware,
#                      kernel, measured figure, the command that reproduces it,
#                      the simulated figure, the ratio and the verdict. A CSV
#                      without a block gets a new section at the end.
#   docs/calibrate.md  the walk-through's runs: the TGET table fitted from a
#                      link latency twice the default and a bandwidth half the
#                      default (both keys, then the latency alone).
#
# A block is the lines between "<!-- begin generated: NAME" and
# "<!-- end generated: NAME -->" (NAME: the CSV's path, or the example's).
#
# Usage: bash bench/fidelity.sh [BINARY]   (default: build/a2a3sim, built first
#                                          if missing)
# Exit status: 0 when every row is within its tolerance, 1 when a row is not
# (the docs are written either way), 2 for a bad CSV, a failed run or a
# source key missing from docs/sources.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sim=${1:-build/a2a3sim}
if [ ! -x "$sim" ]; then
  [ $# -eq 0 ] || {
    echo "fidelity: $sim is not an executable" >&2
    exit 2
  }
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j2 --target a2a3sim >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# replace_block FILE NAME CONTENT: put CONTENT's lines between the markers of
# NAME in FILE; false when FILE has no such block.
replace_block() {
  local file=$1 name=$2 content=$3
  grep -qF -- "<!-- begin generated: $name " "$file" || return 1
  awk -v name="$name" -v content="$content" '
    index($0, "<!-- begin generated: " name " ") == 1 {
      print
      while ((getline line < content) > 0) print line
      skip = 1
      next
    }
    index($0, "<!-- end generated: " name " -->") == 1 { skip = 0 }
    !skip' "$file" >"$tmp/doc"
  cp "$tmp/doc" "$file"
}

begin_marker() { echo "<!-- begin generated: $1 (bash bench/fidelity.sh) -->"; }
end_marker() { echo "<!-- end generated: $1 -->"; }

# docs/sources.md's table of measurements: "key<TAB>hardware" for every row
# of a table whose header has the columns "key" and "hardware".
awk -F'|' '
  function trim(s) { gsub(/^[ \t`]+|[ \t`]+$/, "", s); return s }
  !/^\|/ { kcol = hcol = 0; header = 1; next }
  header {
    header = 0
    for (i = 2; i < NF; i++) {
      c = tolower(trim($i))
      if (c == "key") kcol = i
      if (c == "hardware") hcol = i
    }
    next
  }
  kcol && hcol && $0 !~ /^\|[-: |]+$/ { print trim($kcol) "\t" trim($hcol) }
' docs/sources.md >"$tmp/hardware"

status=0
rows=0
outside=0
for csv in configs/measured/*.csv; do
  [ -e "$csv" ] || continue
  rc=0
  "$sim" calibrate "$csv" --markdown >"$tmp/md" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "fidelity: a2a3sim calibrate $csv --markdown failed (exit $rc)" >&2
    exit 2
  fi
  # Insert the hardware column after the source column.
  if ! awk -F'|' -v OFS='|' -v csv="$csv" '
    FNR == NR { split($0, kv, "\t"); hw[kv[1]] = kv[2]; next }
    FNR == 1 { $3 = $3 "| hardware "; print; next }
    FNR == 2 { $3 = $3 "|---"; print; next }
    {
      key = $3
      gsub(/^ +| +$/, "", key)
      if (!(key in hw)) {
        printf "fidelity: %s: source %s is not in docs/sources.md (table of measurements)\n",
          csv, key > "/dev/stderr"
        bad = 1
      }
      $3 = $3 "| " hw[key] " "
      print
    }
    END { exit bad }' "$tmp/hardware" "$tmp/md" >"$tmp/table"; then
    exit 2
  fi
  n=$(($(wc -l <"$tmp/table") - 2))
  out=$(grep -c '| \*\*no\*\* |$' "$tmp/table" || true)
  rows=$((rows + n))
  outside=$((outside + out))
  [ "$out" -eq 0 ] || status=1
  if ! replace_block docs/fidelity.md "$csv" "$tmp/table"; then
    {
      printf '\n## %s\n\n' "$csv"
      begin_marker "$csv"
      cat "$tmp/table"
      end_marker "$csv"
    } >>docs/fidelity.md
  fi
  echo "fidelity: $csv: $n rows, $((n - out)) within their tolerance"
done

# docs/calibrate.md: the walk-through, from the defaults of the built-in config.
cfg=$("$sim" config check configs/a2-8p-hccs.yaml)
link=$(sed -n '/^  link:$/,/^  [a-z]/p' <<<"$cfg")
lat=$(sed -n 's/^    latency: \(.*\)$/\1/p' <<<"$link" | tr -d ' ')
bw=$(sed -n 's/^    bandwidth: \(.*\)$/\1/p' <<<"$link" | tr -d ' ')
# Twice the latency, half the bandwidth, in ps and B/s (units from the config).
to_base() { # to_base VALUE: ps or B/s
  awk -v v="$1" 'BEGIN {
    n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    s["ps"] = 1; s["ns"] = 1e3; s["us"] = 1e6; s["ms"] = 1e9
    s["B/s"] = 1; s["KB/s"] = 1e3; s["MB/s"] = 1e6; s["GB/s"] = 1e9; s["TB/s"] = 1e12
    if (!(u in s)) exit 1
    printf "%.0f", n * s[u]
  }'
}
lat_ps=$(to_base "$lat") || {
  echo "fidelity: cannot read the default link latency '$lat'" >&2
  exit 2
}
bw_bps=$(to_base "$bw") || {
  echo "fidelity: cannot read the default link bandwidth '$bw'" >&2
  exit 2
}
slow_lat=$(awk -v p="$lat_ps" 'BEGIN { v = 2 * p; if (v % 1000000 == 0) printf "%dus", v / 1e6;
  else if (v % 1000 == 0) printf "%dns", v / 1e3; else printf "%dps", v }')
slow_bw=$(awk -v b="$bw_bps" 'BEGIN { v = b / 2; if (v % 1e9 == 0) printf "%dGB/s", v / 1e9;
  else if (v % 1e6 == 0) printf "%dMB/s", v / 1e6; else printf "%dB/s", v }')
example() { # example NAME CMD...: the command and its stdout as a console block
  local name=$1
  shift
  {
    echo '```console'
    echo "\$ a2a3sim ${*}" | sed "s|$tmp/||g"
    "$sim" "$@" 2>/dev/null | sed "s|$tmp/||g"
    echo '```'
  } >"$tmp/example"
  replace_block docs/calibrate.md "$name" "$tmp/example" || {
    echo "fidelity: docs/calibrate.md has no block '$name'" >&2
    exit 2
  }
}
example "tget fit: latency and bandwidth" calibrate configs/measured/tget.csv \
  --set "interconnect.link.latency=$slow_lat" --set "interconnect.link.bandwidth=$slow_bw" \
  --fit interconnect.link.latency,interconnect.link.bandwidth -o "$tmp/tget-fit.yaml"
{ # its comment and its link section
  echo '```yaml'
  sed -n '1,/^# Every key resolved/p' "$tmp/tget-fit.yaml" | sed "s|$tmp/||g"
  echo '...'
  echo 'interconnect:'
  echo '  ...'
  sed -n '/^  link:$/,/^    latency:/p' "$tmp/tget-fit.yaml"
  echo '  ...'
  echo '```'
} >"$tmp/yaml"
replace_block docs/calibrate.md "tget fit: the fitted YAML" "$tmp/yaml" || {
  echo "fidelity: docs/calibrate.md has no block 'tget fit: the fitted YAML'" >&2
  exit 2
}
example "tget fit: latency alone" calibrate configs/measured/tget.csv \
  --set "interconnect.link.latency=$slow_lat" --fit interconnect.link.latency
echo "fidelity: $rows rows, $((rows - outside)) within their tolerance; wrote docs/fidelity.md," \
  "docs/calibrate.md"
exit $status
