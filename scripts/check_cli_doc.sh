#!/usr/bin/env bash
# Check that docs/cli.md holds each command's flag table as the binary
# prints it from the table in the code (a2a3sim help --markdown COMMAND:
# the usage lines, then one Markdown table per section). In docs/cli.md a
# table sits between the lines
#   <!-- flags: COMMAND ... -->
#   <!-- flags: end -->
# and every command with a flag table (run, config, sweep, calibrate) has
# one. Fails, printing the differences, when they disagree; --write
# rewrites the blocks from the binary instead. ctest runs it
# (CliDoc.FlagTables).
#
# Usage: bash scripts/check_cli_doc.sh [--write] [BINARY]   (default: build/a2a3sim)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
write=0
if [ "${1:-}" = --write ]; then
  write=1
  shift
fi
bin=${1:-build/a2a3sim}
doc=docs/cli.md
commands="run config sweep calibrate"
[ -x "$bin" ] || { echo "check_cli_doc: no binary $bin (build it first)" >&2; exit 2; }

want=$(mktemp)
trap 'rm -f "$want"' EXIT
inside="" seen=""
while IFS= read -r line || [ -n "$line" ]; do
  if [[ $line =~ ^'<!-- flags: end' ]]; then
    [ -n "$inside" ] || { echo "check_cli_doc: $doc: '$line' without a start" >&2; exit 1; }
    inside=""
    echo "$line"
  elif [[ $line =~ ^'<!-- flags: '([a-z]+) ]]; then
    [ -z "$inside" ] || { echo "check_cli_doc: $doc: flags: $inside has no end marker" >&2; exit 1; }
    inside=${BASH_REMATCH[1]}
    seen+=" $inside"
    echo "$line"
    "$bin" help --markdown "$inside"
  elif [ -z "$inside" ]; then
    echo "$line"
  fi
done <"$doc" >"$want"
[ -z "$inside" ] || { echo "check_cli_doc: $doc: flags: $inside has no end marker" >&2; exit 1; }
for c in $commands; do
  n=$(grep -o " $c\b" <<<"$seen" | wc -l)
  if [ "$n" != 1 ]; then
    echo "check_cli_doc: $doc has $n blocks '<!-- flags: $c -->' (expected 1)" >&2
    exit 1
  fi
done
if cmp -s "$want" "$doc"; then
  echo "check_cli_doc: OK ($doc holds the flag tables of:$seen)"
elif [ $write = 1 ]; then
  cp "$want" "$doc"
  echo "check_cli_doc: rewrote the flag tables of $doc (:$seen)"
else
  echo "check_cli_doc: $doc differs from the flag tables in the code" \
    "(a2a3sim help --markdown COMMAND); bash scripts/check_cli_doc.sh --write updates it:" >&2
  diff -u "$doc" "$want" >&2 || true
  exit 1
fi
