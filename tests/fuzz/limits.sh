#!/usr/bin/env bash
# The libFuzzer limits of each harness (docs/robustness.md), shared by
# scripts/fuzz_smoke.sh and tests/fuzz/run_long.sh:
#   source tests/fuzz/limits.sh; flags=($(a2_fuzz_limits HARNESS))
# An input that passes -timeout (seconds) or -rss_limit_mb is a finding, like
# a crash. The timeouts are several times the slowest input that stays within
# the readers' limits under the harness (ASan + UBSan, coverage): a config or
# --set value takes milliseconds; a trace may ask for up to 2^21 instructions
# or 2^25 expansion steps, which take up to 9 s there (0.4 s in Release).
# A loop of 1.2-1.5 M `compute 1` (within the limits; loaded, written and
# loaded back) takes 2-8 s under the harness: it passes the 25 s timeout
# only on a starved CPU, as it did in a one-hour run shared with builds.
# -max_len lets inputs grow to shapes that cost time (deep nesting, long
# lines and chains, many keys); --set values are bounded like an argv string.
a2_fuzz_limits() {
  case $1 in
  config) echo -rss_limit_mb=4096 -timeout=5 -max_len=262144 ;;
  set) echo -rss_limit_mb=4096 -timeout=5 -max_len=131072 ;;
  trace) echo -rss_limit_mb=4096 -timeout=25 -max_len=262144 ;;
  *) return 1 ;;
  esac
}
