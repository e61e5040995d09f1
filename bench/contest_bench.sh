#!/bin/sh
# contest_bench: `aiwolf contest` as an organiser runs it — 30 entries (15
# copies of agents/sample.lua and 15 of agents/random.lua, each in a folder
# of its own), 15-player games, isolated, on every core. Prints games/s, the
# median and p99 time per agent call (request to answer, as the worker sees
# it: the wire round trip plus the agent's own work), and what seed 003's
# full qualifying (30 entries x 1000 games = 2,000 fifteen-player games)
# would take at that speed.
# usage: bench/contest_bench.sh [BUILD_DIR] [GAMES_PER_ENTRY] [JOBS]
#        (defaults: build, 100 (200 games), every core)
set -eu
build=${1:-build}
gpe=${2:-100}
jobs=${3:-$(nproc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq -w 1 15); do
  mkdir -p "$tmp/e/sample$i" "$tmp/e/random$i"
  cp agents/sample.lua "$tmp/e/sample$i/main.lua"
  cp agents/random.lua "$tmp/e/random$i/main.lua"
done
start=$(date +%s.%N)
"$build/aiwolf" contest --quiet --games-per-entry "$gpe" --seed 1 --jobs "$jobs" --out "$tmp/out" "$tmp"/e/* > /dev/null
end=$(date +%s.%N)
python3 - "$tmp/out/results.json" "$start" "$end" "$jobs" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
secs = float(sys.argv[3]) - float(sys.argv[2])
games = r["contest"]["games_done"]
every = r["entries"] + r.get("not_ranked", [])
calls = sum(e["calls"] for e in every)
def q(key, kind):  # results version 2: the times in "time" (wall and the entry's own CPU)
    xs = sorted(e["time"][key] for e in every if e["name"].startswith(kind))
    return xs[len(xs) // 2]
print(f"{games} games of 15 players, 30 entries, {sys.argv[4]} jobs: {secs:.1f} s, {games / secs:.1f} games/s, "
      f"{calls / secs:.0f} calls/s")
print(f"wall time per call (median entry): sample.lua p50 {q('wall_us_median', 'sample'):.0f} us, "
      f"p99 {q('wall_us_p99', 'sample'):.0f} us; random.lua p50 {q('wall_us_median', 'random'):.0f} us, "
      f"p99 {q('wall_us_p99', 'random'):.0f} us")
print(f"CPU time per call (median entry): sample.lua p50 {q('cpu_us_median', 'sample'):.0f} us, "
      f"p99 {q('cpu_us_p99', 'sample'):.0f} us; random.lua p50 {q('cpu_us_median', 'random'):.0f} us, "
      f"p99 {q('cpu_us_p99', 'random'):.0f} us")
print(f"seed 003's qualifying (2,000 games) at this speed: {2000 / (games / secs):.0f} s")
PY
