#!/bin/sh
# Games of agents/random.lua under every preset, at 5 and 15 players: every
# log passes `aiwolf check` under the preset it was played by (given, and read
# from the aiwolf.rules play writes beside the logs), and the summary
# counts every game.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=${AIWOLF_SANITIZED:+20}
n=${n:-150}
for preset in aiwolf seed2015 regulation; do
  for players in 5 15; do
    out="$tmp/$preset-$players"
    "$bin" play --quiet --preset "$preset" --players "$players" --games "$n" --seed 1000 --log "$out" \
      agents/random.lua > "$tmp/summary.txt"
    grep -q "^$n games of $players players (preset $preset" "$tmp/summary.txt" || { cat "$tmp/summary.txt"; exit 1; }
    count=$(ls "$out"/*.log | wc -l)
    [ "$count" -eq "$n" ] || { echo "$count logs for $n games"; exit 1; }
    "$bin" check --quiet --preset "$preset" "$out"/*.log || { echo "illegal log under $preset"; exit 1; }
    # and with no options: the rules play wrote beside the logs (aiwolf.rules)
    "$bin" check --quiet "$out"/*.log || { echo "illegal log under its own rules ($preset)"; exit 1; }
  done
done
echo "random games: all logs legal"
