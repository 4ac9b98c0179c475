#!/usr/bin/env bash
# The comm-core study of docs/what-if.md ("GEMM + all-reduce", 12 / 24 / 48
# communicating vector cores): `a2a3sim sweep` over the built-in
# gemm_allreduce at the gemm_ar shape (8 ranks, M x K x N = 5504 x 6144 x
# 1536, 24 cube cores), --comm-cores 12,24,48 x link bandwidth 28 / 56 GB/s x
# HBM bandwidth 1.6 / 3.2 TB/s, timing-only. Writes DIR/sweep.csv (with the
# overlap columns) and, with gnuplot, DIR/comm_cores.png: pipelined,
# compute-only and comm-only time against the comm-core count, one line per
# (link, HBM) variant for the pipelined time.
#
# Usage: bash bench/gemm_ar_comm_cores.sh [DIR] [BINARY]
#   (default DIR build/gemm-ar-comm-cores, BINARY build/a2a3sim)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=${1:-build/gemm-ar-comm-cores}
sim=${2:-build/a2a3sim}
"$sim" sweep --algo gemm_allreduce --ranks 8 --m 5504 --k 6144 --n 1536 --compute-cores 24 \
  --comm-cores 12,24,48 --set interconnect.link.bandwidth=28GB/s,56GB/s \
  --set chip.hbm.bandwidth=1.6TB/s,3.2TB/s --no-data --jobs 2 -o "$dir" >/dev/null
csv=$dir/sweep.csv
# columns: algo ranks size_bytes m comm_cores link hbm time_ns ... (header names them)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { printf "%s %s %s %.1f %.1f %.1f %.1f %.1f %.3f %.0f\n", $col["comm_cores"],
      $col["interconnect.link.bandwidth"], $col["chip.hbm.bandwidth"], $col["time_ns"] / 1000,
      $col["compute_us"], $col["comm_us"], $col["sequential_us"], $col["exposed_us"],
      $col["overlap_eff"], $col["tflops"] }' "$csv" >"$dir/comm_cores.dat"
echo "| comm cores | link | HBM | pipelined us | compute-only us | comm-only us | sequential us | exposed us | overlap eff | TFLOPS |"
echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
awk '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %.0f %% | %s |\n", $1, $2, $3, $4, $5,
  $6, $7, $8, 100 * $9, $10 }' "$dir/comm_cores.dat"
if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 900,560 font ",11"
set output "$dir/comm_cores.png"
set title "gemm\\\\_allreduce, 8 ranks, 5504 x 6144 x 1536, 24 cube cores"
set xlabel "communicating vector cores per rank (--comm-cores)"
set ylabel "time (us)"
set xtics (12, 24, 48)
set logscale x 2
set key outside right
set grid
plot "< awk '\$2 == \"28GB/s\" && \$3 == \"1.6TB/s\"' $dir/comm_cores.dat" using 1:4 with linespoints lw 2 title "pipelined (default)", \
     "< awk '\$2 == \"56GB/s\" && \$3 == \"1.6TB/s\"' $dir/comm_cores.dat" using 1:4 with linespoints lw 2 title "pipelined, 2x link", \
     "< awk '\$2 == \"28GB/s\" && \$3 == \"3.2TB/s\"' $dir/comm_cores.dat" using 1:4 with linespoints lw 2 dt 2 title "pipelined, 2x HBM", \
     "< awk '\$2 == \"28GB/s\" && \$3 == \"1.6TB/s\"' $dir/comm_cores.dat" using 1:6 with linespoints lw 2 title "comm-only (default)", \
     "< awk '\$2 == \"56GB/s\" && \$3 == \"1.6TB/s\"' $dir/comm_cores.dat" using 1:6 with linespoints lw 2 title "comm-only, 2x link", \
     "< awk '\$2 == \"28GB/s\" && \$3 == \"1.6TB/s\"' $dir/comm_cores.dat" using 1:5 with linespoints lw 2 title "compute-only"
GP
  echo "plot: $dir/comm_cores.png" >&2
fi
