#!/usr/bin/env bash
# README command 2: install what is missing, build Release, run every test
# (ctest over the GoogleTest suites). .ci/run calls this.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
a2_build build
(cd build && ctest --output-on-failure -j"$(nproc)")
