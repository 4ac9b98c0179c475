#!/usr/bin/env bash
# The what-if study of docs/what-if.md ("Fused GEMM + all-reduce"): pto-isa's
# gemm_ar as one fused program (traces/fidelity/gemm_ar_fused.a2t, 8 ranks,
# 24 cube + 24 vector cores each, timing-only) under changed config keys. For
# each variant it runs the program four times - the GEMM alone (comm=0), the
# communication alone (compute=0), sequential (overlap=0) and pipelined - and
# prints one markdown row: the four simulated times, the exposed
# communication (pipelined - GEMM alone), the overlap efficiency as gemm_ar
# defines it ((sequential - pipelined) / the shorter of GEMM and
# communication) and the pipelined TFLOPS (8 ranks x 2 M K N / pipelined).
#
# Usage: bash bench/gemm_ar_whatif.sh [BINARY]   (default build/a2a3sim)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sim=${1:-build/a2a3sim}
trace=traces/fidelity/gemm_ar_fused.a2t
t_us() { # t_us ARGS...: the run's simulated time in us
  "$sim" run --program "$trace" --ranks 8 --no-data "$@" | sed -nE 's/^time ([0-9.]+) us.*/\1/p'
}
echo "| variant | GEMM alone us | comm alone us | sequential us | pipelined us | exposed comm us | overlap eff | TFLOPS |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
variant() { # variant NAME [--set KEY=VALUE]...
  local name=$1
  shift
  local c m s p
  c=$(t_us --param comm=0 "$@")
  m=$(t_us --param compute=0 "$@")
  s=$(t_us --param overlap=0 "$@")
  p=$(t_us "$@")
  awk -v n="$name" -v c="$c" -v m="$m" -v s="$s" -v p="$p" 'BEGIN {
    short = c < m ? c : m
    flops = 8 * 2 * 5504 * 6144 * 1536
    printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f %% | %.0f |\n", n, c, m, s, p, p - c,
      100 * (s - p) / short, flops / (p * 1e-6) / 1e12 }'
}
variant "default (configs/a2-8p-hccs.yaml)"
variant "2x HBM bandwidth (3.2TB/s)" --set chip.hbm.bandwidth=3.2TB/s
variant "2x link bandwidth (56GB/s)" --set interconnect.link.bandwidth=56GB/s
variant "2x atomic window (3776B)" --set chip.mte.remote_atomic_window=3776B
variant "2x store port (39GB/s)" --set chip.mte.remote_store_bandwidth=39GB/s
variant "2x GM->L1 per cube core (270GiB/s)" --set chip.cube.gm_to_l1=270GiB/s
