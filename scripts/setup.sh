#!/usr/bin/env bash
# Install what is missing (Debian 12 packages) and build a Release build in
# build/. Sourced by scripts/demo.sh and scripts/test.sh; safe to re-run.
set -euo pipefail

# clang + libclang-rt-14-dev: libFuzzer for scripts/fuzz_smoke.sh (test.sh).
# clang-format: the formatting check of scripts/test.sh (scripts/check_format.sh).
# gnuplot-nox: the PNG plots of `a2a3sim sweep` (docs/sweep.md).
A2_PACKAGES=(cmake g++ make pkg-config libsystemc-dev libyaml-dev libyajl-dev libgtest-dev
  clang libclang-rt-14-dev clang-format gnuplot-nox libopenmpi-dev openmpi-bin)

a2_missing_packages() {
  local missing=()
  for p in "${A2_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]:-}"
}

a2_install() {
  local missing
  missing=$(a2_missing_packages)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "a2a3sim: missing packages; as root run:" >&2
    echo "  apt-get update && apt-get install -y $missing" >&2
    exit 2
  fi
  echo "a2a3sim: installing $missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -q $missing >/dev/null
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh # a2_build
a2_install
