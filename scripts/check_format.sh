#!/usr/bin/env bash
# The formatting check of the test command: every C and C++ file git tracks
# must be unchanged by clang-format (the Debian clang-format that setup.sh
# installs) under the committed .clang-format. Prints the files that differ
# and the command that formats them; exit 1 if any.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check_format: clang-format not found (scripts/setup.sh installs it)" >&2
  exit 2
fi
bad=()
while IFS= read -r f; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.c' '*.h' '*.cc' '*.cpp')
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} file(s) differ from clang-format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "format them with: clang-format -i ${bad[*]}" >&2
  exit 1
fi
echo "check_format: $(git ls-files '*.c' '*.h' '*.cc' '*.cpp' | wc -l) files formatted"
