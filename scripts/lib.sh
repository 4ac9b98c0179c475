#!/usr/bin/env bash
# Helpers shared by the scripts and bench/run.sh (sourced; installs nothing).

# a2_build DIR [cmake args...]: configure Release (unless the args say
# otherwise) and build into DIR.
a2_build() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

# a2_cluster P: the arguments that run on configs/a2-cluster.yaml sized for
# P ranks (8-NPU servers over a switch).
a2_cluster() {
  echo --config configs/a2-cluster.yaml --set interconnect.ranks="$1" --ranks "$1"
}

# a2_sim_or_build NAME [BINARY]: print the simulator a script runs: BINARY
# when given (an error naming the script NAME, status 2, when it is not an
# executable), else build/a2a3sim, built (Release) when missing.
a2_sim_or_build() {
  local name=$1 sim=${2:-}
  if [ -n "$sim" ]; then
    [ -x "$sim" ] || {
      echo "$name: $sim is not an executable" >&2
      return 2
    }
  else
    sim=build/a2a3sim
    if [ ! -x "$sim" ]; then
      cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build -j"$(nproc)" --target a2a3sim >/dev/null
    fi
  fi
  echo "$sim"
}

# a2_replace_block FILE NAME CONTENT: put the lines of the file CONTENT
# between FILE's markers "<!-- begin generated: NAME ..." and
# "<!-- end generated: NAME -->" (the markers stay); false, FILE untouched,
# when FILE has no such block.
a2_replace_block() {
  local file=$1 name=$2 content=$3 out
  grep -qF -- "<!-- begin generated: $name " "$file" || return 1
  out=$(mktemp)
  awk -v name="$name" -v content="$content" '
    index($0, "<!-- begin generated: " name " ") == 1 {
      print
      while ((getline line < content) > 0) print line
      skip = 1
      next
    }
    index($0, "<!-- end generated: " name " -->") == 1 { skip = 0 }
    !skip' "$file" >"$out"
  cat "$out" >"$file"
  rm -f "$out"
}

# a2_three_timings NAME SIM ARGS...: one case's simulated time in ps under
# packet, reservation and ordered timing (timing-only runs of `SIM run
# ARGS...`), printed on one line; an error naming the script NAME, the mode
# and the arguments, status 2, when a run fails.
a2_three_timings() {
  local name=$1 sim=$2 mode out t=()
  shift 2
  for mode in packet reservation ordered; do
    out=$("$sim" run "$@" --no-data --no-race-check --json --set "interconnect.timing=$mode") &&
      out=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["time_ps"])' <<<"$out") || {
      echo "$name: $mode run failed: $*" >&2
      return 2
    }
    t+=("$out")
  done
  echo "${t[*]}"
}
