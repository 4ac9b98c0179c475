#!/usr/bin/env bash
# Install what is missing (Debian 12 packages) and build a Release build in
# build/. Sourced by scripts/demo.sh and scripts/test.sh; safe to re-run.
set -euo pipefail

# clang + libclang-rt-14-dev: libFuzzer for scripts/fuzz_smoke.sh (test.sh).
# clang-format: the formatting check of scripts/test.sh (scripts/check_format.sh).
# gnuplot-nox: the PNG plots of `a2a3sim sweep` (docs/sweep.md).
# python3-*: the Python package in python/ (docs/python.md) and its tests
# (scripts/test_python.sh: pytest, the notebook run by nbconvert and ipykernel).
A2_PACKAGES=(cmake g++ make pkg-config libsystemc-dev libyaml-dev libyajl-dev libgtest-dev
  clang libclang-rt-14-dev clang-format gnuplot-nox libopenmpi-dev openmpi-bin
  python3-numpy python3-pandas python3-matplotlib python3-pytest python3-nbconvert python3-ipykernel)

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

# a2_python_path: `import a2a3sim` from any folder, for Debian's python3 and
# for the python3 first on PATH when that is another one: a .pth file in the
# interpreter's site folder (Debian's: /usr/local/lib/python3.X/dist-packages)
# naming this checkout's python/ (docs/python.md). Without root, say how to
# do without it.
a2_python_path() {
  local py site pth seen=" "
  for py in /usr/bin/python3 "$(command -v python3 || true)"; do
    if [ -z "$py" ] || [ ! -x "$py" ]; then continue; fi
    site=$("$py" -c 'import site; s = site.getsitepackages(); print(next((p for p in s if p.startswith("/usr/local/")), s[0]))' 2>/dev/null) || continue
    case "$seen" in *" $site "*) continue ;; esac
    seen="$seen$site "
    pth="$site/a2a3sim.pth"
    [ -f "$pth" ] && [ "$(cat "$pth")" = "$PWD/python" ] && continue
    if [ "$(id -u)" != 0 ]; then
      echo "a2a3sim: for 'import a2a3sim' from Python: export PYTHONPATH=$PWD/python (or run this as root)" >&2
      return 0
    fi
    mkdir -p "$site"
    echo "$PWD/python" >"$pth"
  done
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh # a2_build
a2_install
a2_python_path
