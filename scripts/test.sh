#!/usr/bin/env bash
# README command 2: check the layer order of the includes
# (scripts/check_layers.sh), install what is missing, check the formatting
# (scripts/check_format.sh), build Release, run
# every test (ctest over the GoogleTest suites, plus valgrind on the
# binary), the Python package's tests (scripts/test_python.sh), check
# that the profile-feedback build (scripts/build_pgo.sh)
# gives the same outputs (scripts/same_outputs.sh), then build the same
# suites with ASan + UBSan in build-asan/ and run them again, then the fuzz
# smoke (scripts/fuzz_smoke.sh: libFuzzer harnesses, 60 s each).
# .ci/run calls this.
#
# --quick: the loop to use while working (at most 5 minutes on 2 cores):
# the layer and format checks, the Release build, ctest without the slow
# tests named in A2_SLOW_TESTS below (valgrind, the largest fidelity
# tables, the MPI sweep, the full-study sweeps and fits) and the Python
# tests; no PGO, sanitizer or fuzz stage. Run the full command before a
# commit that touches the model, a timing or a fidelity row.
set -euo pipefail
quick=0
case "${1:-}" in
"") ;;
--quick) quick=1 ;;
*)
  echo "usage: scripts/test.sh [--quick]" >&2
  exit 2
  ;;
esac
A2_SLOW_TESTS='^Valgrind\.|^Fidelity\.gemm-ar|^SweepMpi\.|^SweepGrid\.(FullStudy|CsvIsByteIdentical|GemmFlags)|^OutputFaults\.CalibrateFitted|^CalibrateFit\.(TheFittedYaml|TheTgetTable)|^Table/ContentionCase\..*Mesh24Cores|^Builtin/CollectiveCard\.all|^AllCollectives/LazyEqualsMaterialised'
bash "$(dirname "${BASH_SOURCE[0]}")/check_layers.sh"
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
bash scripts/check_format.sh
jobs=$(nproc)
# The test build includes the MPI sweep (OpenMPI, -DA2_MPI=ON) so that
# `mpirun -n K a2a3sim sweep` is tested too.
a2_build build -DA2_MPI=ON
if [ "$quick" = 1 ]; then
  (cd build && ctest --output-on-failure -j"$jobs" -E "$A2_SLOW_TESTS")
  bash scripts/test_python.sh build
  echo "== quick: done (not run: the tests matching A2_SLOW_TESTS, PGO, ASan + UBSan, fuzz)"
  exit 0
fi
(cd build && ctest --output-on-failure -j"$jobs")
bash scripts/test_python.sh build # the Python package's tests and the notebook (docs/python.md)
echo "== profile-feedback build (scripts/build_pgo.sh): the same outputs as Release"
bash scripts/build_pgo.sh build-pgo
bash scripts/same_outputs.sh build/a2a3sim build-pgo/a2a3sim
echo "== sanitizer build (ASan + UBSan)"
a2_build build-asan -DA2_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
# (without MPI: OpenMPI's own allocations would drown LeakSanitizer; without
# OutOfMemory.*, which limits the child's address space and ASan's shadow
# memory needs terabytes of it; both ran in the Release suite above)
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -E 'SweepMpi|^OutOfMemory\.')
echo "== fuzz smoke (libFuzzer, clang)"
bash scripts/fuzz_smoke.sh
