#!/usr/bin/env bash
# Check that no function in the given .c files (or the .c files under the
# given folders) is longer than a limit: 120 lines by default, counted from
# the line its definition starts on to its closing brace. Functions are
# found as clang-format lays them out: a definition starts at column 0 and
# its body ends with a "}" alone at column 0 (braces in comments, strings
# and character literals do not count; an initialiser ends with "};", so
# tables are not functions). ctest runs it on cli/ and the flag parsers
# (CliFunctionLength); it names each function over the limit as FILE:LINE.
#
# Usage: bash scripts/check_function_length.sh [--max N] PATH...
set -euo pipefail
max=120
if [ "${1:-}" = --max ]; then
  max=$2
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [--max N] PATH..." >&2; exit 2; }
files=$(find "$@" -name "*.c" | sort)
[ -n "$files" ] || { echo "check_function_length: no .c files in $*" >&2; exit 2; }
# shellcheck disable=SC2086
awk -v max="$max" '
  FNR == 1 { start = 0; depth = 0; incomment = 0 }
  {
    line = $0
    # strip comments, strings and character literals before counting braces
    if (incomment) {
      if (sub(/^.*\*\//, "", line)) incomment = 0; else next
    }
    gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", line)
    if (sub(/\/\*.*$/, "", line)) incomment = 1
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
    gsub(/\047([^\047\\]|\\.)*\047/, "0", line)
    sub(/\/\/.*$/, "", line)
    if (depth == 0 && start == 0 && line ~ /^[A-Za-z_]/ && line !~ /^(typedef|struct|enum|union)[ {]/)
      start = FNR
    opens = gsub(/{/, "{", line); closes = gsub(/}/, "}", line)
    depth += opens - closes
    if (depth == 0 && start) {
      if ($0 == "}" ) {
        n = FNR - start + 1
        checked++
        if (n > max) {
          printf "%s:%d: function of %d lines (at most %d)\n", FILENAME, start, n, max > "/dev/stderr"
          bad++
        }
        start = 0
      } else if (line ~ /;[ \t]*$/) start = 0
    }
  }
  END {
    if (bad) { printf "check_function_length: FAILED (%d over %d lines)\n", bad, max > "/dev/stderr"; exit 1 }
    printf "check_function_length: OK (%d functions, none over %d lines)\n", checked, max
  }' $files
