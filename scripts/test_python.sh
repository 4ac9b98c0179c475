#!/usr/bin/env bash
# The Python package's tests (docs/python.md) against BUILD_DIR/a2a3sim:
# pytest on python/tests, then the notebook python/examples/what_if.ipynb
# executed with nbconvert into a temporary folder (the committed notebook is
# never rewritten). Debian's python3 and python3-* packages (scripts/setup.sh).
# Exit status: non-zero on any failure.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: scripts/test_python.sh BUILD_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x "$build/a2a3sim" ]; then
  echo "test_python.sh: no $build/a2a3sim: build it first" >&2
  exit 2
fi
# The package runs this build's binary and is imported from this checkout;
# nothing is written into the tree (no bytecode, no pytest cache).
export A2A3SIM="$build/a2a3sim"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 PYDEVD_DISABLE_FILE_VALIDATION=1
py=/usr/bin/python3
echo "== pytest python/tests"
"$py" -m pytest -p no:cacheprovider -q python/tests
echo "== notebook python/examples/what_if.ipynb (nbconvert --execute)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd python/examples && "$py" -m nbconvert --to notebook --execute what_if.ipynb \
  --ExecutePreprocessor.timeout=300 --output-dir "$out")
test -s "$out/what_if.ipynb"
echo "notebook executed: $(grep -c '"output_type"' "$out/what_if.ipynb") outputs"
