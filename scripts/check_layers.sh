#!/usr/bin/env bash
# Check that every `#include "folder/file.h"` in the source folders follows
# the layer order: a file may include its own folder, common/, and the
# folders its folder reaches by the arrows below (directly or through
# others); anything else - a folder above its own, or beside it - fails,
# naming file:line and the two folders. docs/architecture.md ("Layers")
# shows the same arrows; this script checks that its list is this one.
# scripts/test.sh runs it first (it takes well under a second).
#
# Usage: bash scripts/check_layers.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The layer order, top to bottom: each folder and the folders it may use
# directly. Everything may use common/.
arrows='cli -> sweep calibrate
sweep -> collectives model procs
calibrate -> collectives procs
collectives -> configs traces
model -> noc configs traces
noc -> kernel configs
kernel ->
configs ->
traces ->
procs ->
common ->'

folders=$(sed 's/ ->.*//' <<<"$arrows")

# The same list in docs/architecture.md, between its two layer markers.
doc=$(sed -n '/<!-- layers: begin/,/<!-- layers: end/p' docs/architecture.md | sed '1d;$d' |
  grep -v '^```' || true)
if [ "$doc" != "$arrows" ]; then
  echo "check_layers: the arrows in docs/architecture.md (Layers) differ from scripts/check_layers.sh:" >&2
  diff <(echo "$doc") <(echo "$arrows") >&2 || true
  exit 1
fi

# reach[f]: the folders f may include (its own, common, and what the arrows reach).
declare -A direct reach
while read -r from _ to; do direct[$from]=$to; done <<<"$arrows"
visit() { # visit FROM FOLDER: add FOLDER and what it reaches to reach[FROM]
  local f
  case " ${reach[$1]} " in *" $2 "*) return ;; esac
  reach[$1]+=" $2"
  for f in ${direct[$2]}; do visit "$1" "$f"; done
}
for f in $folders; do
  reach[$f]=""
  visit "$f" "$f"
  visit "$f" common
done

bad=0
for f in $folders; do
  [ -d "$f" ] || {
    echo "check_layers: folder $f/ (listed in the layer order) does not exist" >&2
    bad=1
    continue
  }
  while IFS=: read -r file line target; do
    [ -n "$file" ] || continue
    to=${target%%/*}
    if [ "$to" = "$target" ]; then
      echo "$file:$line: $f/ includes \"$target\" without a folder" >&2
      bad=1
    elif ! grep -qx "$to" <<<"$folders"; then
      echo "$file:$line: $f/ includes $to/, which is not a source folder of the layer order" >&2
      bad=1
    else
      case " ${reach[$f]} " in
      *" $to "*) ;;
      *)
        echo "$file:$line: $f/ includes $to/: no arrow $f -> $to in the layer order" \
          "(docs/architecture.md, Layers)" >&2
        bad=1
        ;;
      esac
    fi
  done < <(grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' \
    --include='*.c' --include='*.h' --include='*.cc' "$f" |
    sed -E 's/^([^:]+):([0-9]+):.*"([^"]+)"$/\1:\2:\3/')
done
if [ $bad != 0 ]; then
  echo "check_layers: FAILED" >&2
  exit 1
fi
echo "check_layers: OK ($(wc -w <<<"$folders") folders, includes follow the layer order)"
