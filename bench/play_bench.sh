#!/bin/sh
# play_bench: games per second of whole games through `aiwolf play --games`
# (Lua agents in their sandboxes, talk validated and parsed, no log written),
# at 5 and 15 players, on one core.
# usage: bench/play_bench.sh [BUILD_DIR] [GAMES]
set -eu
build=${1:-build}
games=${2:-2000}
for agents in "agents/random.lua" "agents/sample.lua" "agents/sample.lua agents/random.lua"; do
  for players in 5 15; do
    n=$games
    [ "$players" -eq 15 ] && n=$((games / 4))
    # shellcheck disable=SC2086
    line=$("$build/aiwolf" play --quiet --players "$players" --games "$n" --seed 1 $agents | head -1)
    echo "$players players, $agents: $line"
  done
done
