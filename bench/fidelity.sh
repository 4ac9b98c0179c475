#!/usr/bin/env bash
# Regenerate the generated blocks of docs/fidelity.md and docs/calibrate.md
# from `a2a3sim calibrate`; the prose around them is hand-written.
#
#   docs/fidelity.md   per configs/measured/*.csv its tables (calibrate
#                      --markdown of every CSV at once, with a hardware column
#                      from docs/sources.md's table of measurements): a table
#                      of its fit rows and one of its predict rows, each row's
#                      source, hardware, program, measured figure, the command
#                      that reproduces it, the simulated figure, the ratio and
#                      the verdict, each table with its summary line (rows,
#                      median and worst |error|). A CSV without a block gets
#                      a new section at the end. The block "summary": the
#                      summary lines of every CSV's fit rows and predict rows.
#                      The block "leave one source out": per source of fit
#                      rows, its rows' error with the keys it fitted refitted
#                      without it (calibrate --holdout; printed too).
#   docs/calibrate.md  the walk-through's runs: the TGET table fitted from a
#                      link latency twice the default and a bandwidth half the
#                      default (both keys, then the latency alone); the TGET
#                      rows held out of a fit of the latency to the
#                      TGET-plus-copy rows.
#
# A block is the lines between "<!-- begin generated: NAME" and
# "<!-- end generated: NAME -->" (NAME: the CSV's path, or the example's).
#
# Usage: bash bench/fidelity.sh [BINARY]   (default: build/a2a3sim, built first
#                                          if missing)
# Exit status: 0 when every row is within its tolerance, 1 when a row is not
# (the docs are written either way), 2 for a bad CSV, a failed run or a
# source key missing from docs/sources.md.
# Time: the leave-one-source-out refits are most of it (six fits of one key,
# at most 24 points each; the built-in gemm_allreduce rows take seconds a
# point): about 3 minutes on 2 idle cores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh # a2_sim_or_build, a2_replace_block
sim=$(a2_sim_or_build fidelity "${1:-}") || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# Every CSV in one calibrate call: each file's tables (fit rows, predict
# rows, each with its summary line) after "<!-- calibrate: FILE -->", then
# "<!-- calibrate: every file -->" and the summary lines of every row.
csvs=(configs/measured/*.csv)
[ -e "${csvs[0]}" ] || {
  echo "fidelity: no configs/measured/*.csv" >&2
  exit 2
}
rc=0
"$sim" calibrate --markdown "${csvs[@]}" >"$tmp/all" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "fidelity: a2a3sim calibrate --markdown configs/measured/*.csv failed (exit $rc)" >&2
  exit 2
fi
if [ "${#csvs[@]}" -eq 1 ]; then # one file: no markers, and its summary is every row's
  { echo "<!-- calibrate: ${csvs[0]} -->"; cat "$tmp/all"; echo "<!-- calibrate: every file -->"
    grep '^\*\*' "$tmp/all"; } >"$tmp/all1"
  mv "$tmp/all1" "$tmp/all"
fi
mkdir "$tmp/part"
# part/N: the N-th file's tables (N in the order of csvs), part/every: the summary.
# (The blank lines between parts are dropped.)
awk -v dir="$tmp/part" '
  /^<!-- calibrate: every file -->$/ { out = dir "/every"; blanks = 0; next }
  /^<!-- calibrate: .* -->$/ { out = dir "/" n++; blanks = 0; next }
  !out { next }
  /^$/ { blanks++; next }
  { while (blanks) { print "" > out; blanks-- } print > out }' "$tmp/all"

# Insert the hardware column after the source column of every table (a
# header line, its delimiter line, its rows); other lines pass.
with_hardware() { # with_hardware CSV PART
  awk -F'|' -v OFS='|' -v csv="$1" '
    FNR == NR { split($0, kv, "\t"); hw[kv[1]] = kv[2]; next }
    /^\| row \| source \|/ { $3 = $3 "| hardware "; print; next }
    /^\|---/ { $3 = $3 "|---"; print; next }
    /^\| / {
      key = $3
      gsub(/^ +| +$/, "", key)
      if (!(key in hw)) {
        printf "fidelity: %s: source %s is not in docs/sources.md (table of measurements)\n",
          csv, key > "/dev/stderr"
        bad = 1
      }
      $3 = $3 "| " hw[key] " "
      print
      next
    }
    { print }
    END { exit bad }' "$tmp/hardware" "$2"
}

status=0
rows=0
outside=0
i=0
for csv in "${csvs[@]}"; do
  part="$tmp/part/$i"
  i=$((i + 1))
  with_hardware "$csv" "$part" >"$tmp/table" || exit 2
  n=$(($(grep -c '^| ' "$tmp/table") - $(grep -c '^| row | source |' "$tmp/table")))
  out=$(grep -c '| \*\*no\*\* |$' "$tmp/table" || true)
  rows=$((rows + n))
  outside=$((outside + out))
  [ "$out" -eq 0 ] || status=1
  if ! a2_replace_block docs/fidelity.md "$csv" "$tmp/table"; then
    {
      printf '\n## %s\n\n' "$csv"
      begin_marker "$csv"
      cat "$tmp/table"
      end_marker "$csv"
    } >>docs/fidelity.md
  fi
  echo "fidelity: $csv: $n rows, $((n - out)) within their tolerance"
done
cp "$tmp/part/every" "$tmp/summary"
a2_replace_block docs/fidelity.md "summary" "$tmp/summary" || {
  echo "fidelity: docs/fidelity.md has no block 'summary'" >&2
  exit 2
}
sed 's/\*\*//g' "$tmp/summary" | grep . | sed 's/^/fidelity: /'

# The sources of fit rows, in order: the source column of every table whose
# summary line is the fit rows' ("**Fitted rows**"); with the files they are in.
awk -F'|' '
  /^<!-- calibrate: every file -->$/ { exit }
  /^<!-- calibrate: .* -->$/ { file = $0; sub(/^<!-- calibrate: /, "", file); sub(/ -->$/, "", file) }
  /^\| / && !/^\| row \| source \|/ && !/^\|---/ {
    s = $3; gsub(/^ +| +$/, "", s); pending[++np] = s
  }
  /^\*\*Fitted rows\*\*/ {
    for (j = 1; j <= np; j++) {
      s = pending[j]
      if (!(s in files)) order[++ns] = s
      if (index(" " files[s] " ", " " file " ") == 0) files[s] = files[s] (files[s] ? " " : "") file
    }
    np = 0
  }
  /^\*\*Predicted rows\*\*/ { np = 0 }
  END { for (j = 1; j <= ns; j++) print order[j] "\t" files[order[j]] }' "$tmp/all" >"$tmp/fitsources"

# Leave one source out: for each source of fit rows, the keys its rows
# depend on among the fitted ones (docs/sources.md says which source fitted
# each), refitted from the shipped config to the other fit rows of the
# files below that depend on them, without the source's rows
# (`calibrate --holdout`); its rows' error with the shipped config (fitted
# with them) and with the keys refitted without them. Each refit is one key,
# default range (1/16x..16x), at most $loso_evals points; the files are the
# ones whose rows share the key, the cheapest when several do
# (pto-isa-gemm-ar-rev2: gemm-ar-comm.csv, not the built-in's rows;
# pto-isa-allgather-gemm: gemm-ar-comm.csv, whose all-gather's plain stores
# are the other rows the write window times).
loso_evals=24
loso_spec() { # SOURCE|KEYS|FILES (configs/measured/)|why not, when no other rows share them
  cat <<'SPEC'
pto-isa-tget|interconnect.link.latency|tget-copy.csv|
pto-isa-tget-copy|chip.hbm.latency|tget.csv|
pto-isa-gemm-ar|chip.mte.remote_atomic_window|gemm-ar-builtin-rev2.csv|
pto-isa-gemm-ar-rev2|chip.mte.remote_atomic_window|gemm-ar-comm.csv|
pto-isa-allgather-gemm|chip.mte.remote_write_window|gemm-ar-comm.csv|
hixl-hccs|chip.sdma.write_bandwidth|hccl-allreduce.csv|
limulidae|chip.sdma.write_bandwidth|hixl-hccs.csv|
hixl-roce|||only its own rows depend on interconnect.nic.rdma_launch and rdma_bandwidth (the NIC's RDMA engine): nothing else fixes them
hixl-a3-hccs|||only its own fit rows depend on the A3 SDMA keys (chip.sdma.* of configs/a3-*.yaml): nothing else fixes them; the A3 FabricMem rows they predict are predict rows
hixl-a3-fabricmem-dual|||only its own fit rows depend on the super-node level's dma_ack_latency and dma_ack_bandwidth (configs/a3-supernode-levels.yaml): nothing else fixes them; its read rows are predict rows
SPEC
}
# The summary line's figures: "median M %, worst W % (ROW), K within".
figures() { sed -nE 's/^[a-z-]+ rows: ([0-9]+), median \|error\| ([0-9.]+ %), worst \|error\| ([0-9.]+ %) \(([^)]*)\), ([0-9]+) within.*/\2 \/ \3 (\4)|\5 of \1/p'; }
{
  echo "| held-out source | rows | refitted without it | fitted to | median / worst \|error\|, shipped config (fitted with it) | median / worst \|error\|, refitted without it | within tolerance, refitted |"
  echo "|---|---:|---|---|---|---|---|"
} >"$tmp/loso"
while IFS=$'\t' read -r src files; do
  spec=$(loso_spec | awk -F'|' -v s="$src" '$1 == s')
  nrows=$(awk -F'|' -v s="$src" '
    /^<!-- calibrate: every file -->$/ { exit }
    /^\| / && !/^\| row \| source \|/ && !/^\|---/ { x = $3; gsub(/^ +| +$/, "", x); if (x == s) n++ }
    END { print n + 0 }' "$tmp/all")
  if [ -z "$spec" ]; then
    echo "| $src | $nrows | - | - | - | - | no refit set in bench/fidelity.sh |" >>"$tmp/loso"
    continue
  fi
  IFS='|' read -r _ keys others why <<<"$spec"
  if [ -z "$keys" ]; then
    echo "| $src | $nrows | - | - | - | - | $why |" >>"$tmp/loso"
    continue
  fi
  args=()
  for f in $files; do args+=("$f"); done
  for f in $others; do
    [[ " $files " == *" configs/measured/$f "* ]] || args+=("configs/measured/$f")
  done
  rc=0
  "$sim" calibrate --holdout "$src" "${args[@]}" --fit "$keys" --max-evals "$loso_evals" \
    </dev/null >"$tmp/fit" 2>"$tmp/fit.err" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "fidelity: a2a3sim calibrate --holdout $src ${args[*]} --fit $keys failed (exit $rc):" >&2
    grep -v '^calibrate: point' "$tmp/fit.err" >&2
    exit 2
  fi
  shipped=$(grep '^held-out rows: ' "$tmp/fit" | sed -n 1p | figures)
  refit=$(grep '^held-out rows: ' "$tmp/fit" | sed -n 2p | figures)
  # shellcheck disable=SC2016 # backticks are markdown
  values=$(sed -n '/^fitted:$/,/^[a-z]/s/^  \([a-z0-9_.]*\): \([^ ]* -> [^ ]*\)$/`\1` \2/p' \
    "$tmp/fit" | paste -sd';' | sed 's/;/; /g')
  grep -q 'stopped by --max-evals' "$tmp/fit" && values="$values (search stopped at $loso_evals points)"
  fitted_to=$(for f in "${args[@]}"; do
    [[ " $files " == *" $f "* ]] || basename "$f"
  done | paste -sd' ' | sed 's/ /, /g')
  echo "| $src | $nrows | $values | $fitted_to | ${shipped%%|*} | ${refit%%|*} | ${refit##*|} |" >>"$tmp/loso"
done <"$tmp/fitsources"
cat "$tmp/loso"
a2_replace_block docs/fidelity.md "leave one source out" "$tmp/loso" || {
  echo "fidelity: docs/fidelity.md has no block 'leave one source out'" >&2
  exit 2
}

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
  a2_replace_block docs/calibrate.md "$name" "$tmp/example" || {
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
a2_replace_block docs/calibrate.md "tget fit: the fitted YAML" "$tmp/yaml" || {
  echo "fidelity: docs/calibrate.md has no block 'tget fit: the fitted YAML'" >&2
  exit 2
}
example "tget fit: latency alone" calibrate configs/measured/tget.csv \
  --set "interconnect.link.latency=$slow_lat" --fit interconnect.link.latency
example "holdout: tget from tget-copy" calibrate --holdout pto-isa-tget \
  configs/measured/tget.csv configs/measured/tget-copy.csv --fit interconnect.link.latency
echo "fidelity: $rows rows, $((rows - outside)) within their tolerance; wrote docs/fidelity.md," \
  "docs/calibrate.md"
exit $status
