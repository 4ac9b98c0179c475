#!/usr/bin/env bash
# README command 2: install what is missing, build Release, run every test
# (ctest over the GoogleTest suites, plus valgrind on the binary), then build
# the same suites with ASan + UBSan in build-asan/ and run them again, then
# the fuzz smoke (scripts/fuzz_smoke.sh: libFuzzer harnesses, 60 s each).
# .ci/run calls this.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
jobs=$(nproc)
a2_build build
(cd build && ctest --output-on-failure -j"$jobs")
echo "== sanitizer build (ASan + UBSan)"
a2_build build-asan -DA2_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")
echo "== fuzz smoke (libFuzzer, clang)"
bash scripts/fuzz_smoke.sh
