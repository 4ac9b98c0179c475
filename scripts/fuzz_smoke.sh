#!/usr/bin/env bash
# Fuzz smoke (docs/robustness.md): build the libFuzzer harnesses of tests/fuzz/
# with clang in build-fuzz/, replay the committed corpus
# (tests/fuzz/corpus/{config,set,trace}) strictly, then fuzz each harness for
# FUZZ_SECONDS (default 60) starting from it. Any crash, sanitizer report,
# leak, failed check, slow input (past the harness's -timeout) or
# out-of-memory fails the script (exit 1) and leaves the input in
# build-fuzz/smoke/HARNESS/. The limits are in tests/fuzz/limits.sh.
# scripts/test.sh runs it after the sanitizer suite.
#
# Without clang + libFuzzer it prints "skipped: clang with libFuzzer not
# installed" and exits 0, except under CI=true, where it must run (setup.sh
# installs clang and libclang-rt-14-dev) and a missing compiler fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${FUZZ_SECONDS:-60}
# shellcheck source=tests/fuzz/limits.sh
source tests/fuzz/limits.sh

have_libfuzzer() {
  command -v clang >/dev/null 2>&1 || return 1
  local d
  d=$(mktemp -d)
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$d/t.c"
  clang -fsanitize=fuzzer,address,undefined "$d/t.c" -o "$d/t" >/dev/null 2>&1
  local rc=$?
  rm -rf "$d"
  return $rc
}

if ! have_libfuzzer; then
  if [ "${CI:-}" = true ]; then
    echo "fuzz smoke: FAILED: clang with libFuzzer not installed (needed under CI=true;" \
      "apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
  fi
  echo "fuzz smoke: skipped: clang with libFuzzer not installed (apt-get install clang libclang-rt-14-dev)"
  exit 0
fi

echo "== fuzz smoke: build (clang, libFuzzer + ASan + UBSan) in build-fuzz/"
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DA2_FUZZ=ON -DA2_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_config fuzz_set fuzz_trace >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=()
for h in config set trace; do
  read -r -a limits <<<"$(a2_fuzz_limits $h)"
  bin=build-fuzz/fuzz_$h
  corpus=tests/fuzz/corpus/$h
  out=build-fuzz/smoke/$h
  rm -rf "$out"
  mkdir -p "$out/work"
  # 1. strict replay of the committed corpus: every input must pass
  if ! "$bin" -runs=0 "${limits[@]}" -artifact_prefix="$out/" "$corpus" >"$out/replay.log" 2>&1; then
    echo "fuzz smoke: fuzz_$h FAILED replaying $corpus:" >&2
    grep -v '^#[0-9]\|NEW_FUNC' "$out/replay.log" | tail -n 40 >&2
    # name the corpus file: libFuzzer calls the saved input crash-SHA1 (or timeout-, oom-, leak-)
    for a in "$out"/*-*; do
      [ -f "$a" ] || continue
      sum=$(sha1sum <"$a" | cut -d' ' -f1)
      for f in "$corpus"/*; do
        [ "$(sha1sum <"$f" | cut -d' ' -f1)" = "$sum" ] && echo "fuzz smoke: the failing input is $f" >&2
      done
    done
    grep -m3 'a2 fuzz check failed\|ERROR: \(AddressSanitizer\|LeakSanitizer\|libFuzzer\)\|runtime error' \
      "$out/replay.log" >&2 || true
    failed+=("$h(replay)")
    continue
  fi
  # 2. fuzz from the corpus for $seconds (new inputs go to $out/work, not the corpus)
  dict=tests/fuzz/config.dict
  [ "$h" = trace ] && dict=tests/fuzz/trace.dict
  start=$(date +%s)
  rc=0
  "$bin" -dict="$dict" -max_total_time="$seconds" "${limits[@]}" -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/work" "$corpus" >"$out/fuzz.log" 2>&1 || rc=$?
  if [ $rc = 0 ]; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | tail -1 | grep -o '[0-9]*$' || true)
    echo "fuzz smoke: fuzz_$h OK: ${execs:-?} executions in $(($(date +%s) - start)) s" \
      "($(find "$corpus" -type f | wc -l) corpus inputs; ${limits[*]})"
  else
    echo "fuzz smoke: fuzz_$h FAILED (input and log in $out/):" >&2
    grep -v '^#[0-9]\|NEW_FUNC' "$out/fuzz.log" | tail -n 60 >&2
    grep -m3 'a2 fuzz check failed\|ERROR: \(AddressSanitizer\|LeakSanitizer\|libFuzzer\)\|runtime error' \
      "$out/fuzz.log" >&2 || true
    failed+=("$h")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz smoke: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz smoke: OK"
