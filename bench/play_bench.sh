#!/bin/sh
# play_bench: whole games through `aiwolf play --games` (Lua agents in their
# sandboxes, talk validated and parsed, no log written), at 5 and 15
# players, on one core (--jobs 1), in process and with --isolate, for an
# agent that ignores info, agents/random.lua, agents/sample.lua and the two
# alternating. For each: games per second, calls per game (counted in an
# --events run of a few games), µs per call (the whole game's time over its
# calls: host, agent and engine), and the process's peak RSS (with
# --isolate the children's memory is not in it).
# usage: bench/play_bench.sh [BUILD_DIR] [GAMES]   (GAMES at 5 players; a
#        quarter of it at 15, a tenth with sample.lua, a fifth isolated)
set -eu
build=${1:-build}
games=${2:-2000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'local agent = {}\nfunction agent.talk() return "Over" end\nreturn agent\n' > "$tmp/ignore.lua"
printf '%-10s %-3s %-38s %10s %10s %9s %9s\n' mode pl agents games/s calls/game us/call rss_kb
for agents in "$tmp/ignore.lua" "agents/random.lua" "agents/sample.lua" "agents/sample.lua agents/random.lua"; do
  for players in 5 15; do
    for mode in in-process isolated; do
      n=$games
      [ "$players" -eq 15 ] && n=$((n / 4))
      case $agents in *sample*) n=$((n / 10)) ;; esac
      flag=""
      if [ "$mode" = isolated ]; then flag="--isolate"; n=$((n / 5)); fi
      [ "$n" -lt 4 ] && n=4
      # shellcheck disable=SC2086
      "$build/aiwolf" play --quiet --jobs 1 --players "$players" --games 4 --seed 1 $flag \
        --events "$tmp/events.jsonl" $agents > /dev/null
      calls=$(grep -c '"event":"call"' "$tmp/events.jsonl")
      # shellcheck disable=SC2086
      /usr/bin/time -f '%M' -o "$tmp/rss" "$build/aiwolf" play --quiet --jobs 1 --players "$players" \
        --games "$n" --seed 1 $flag $agents > "$tmp/out"
      rate=$(head -1 "$tmp/out" | sed -n 's/.*: \([0-9.]*\) games\/s.*/\1/p')
      name=$(echo "$agents" | sed "s|$tmp/||")
      awk -v m="$mode" -v p="$players" -v a="$name" -v r="$rate" -v c="$calls" -v k="$(cat "$tmp/rss")" \
        'BEGIN { cpg = c / 4; printf "%-10s %-3s %-38s %10.1f %10.0f %9.2f %9d\n", m, p, a, r, cpg, 1e6 / (r * cpg), k }'
    done
  done
done
