#!/bin/sh
# The summary of `play --games` answers "is my agent better?":
#  - the same file given twice is one row; its games count every seat;
#  - each row has a 95 % interval per game (the seats one file holds in a
#    game are one result) that agrees with the games' logs;
#  - --summary writes the rows as JSON or CSV for tools (and refuses a file
#    name that says neither);
#  - --vs plays mirrored pairs on one seed (each agent plays the other's
#    roles: equal role counts), and prints the difference with its interval;
#  - each agent version's first fault is printed at once, with file:line;
#  - with --watch, a changed file is a row of its own (agent@version).
set -eu
bin=$1
. "$(dirname "$0")/waits.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" play --games 30 --seed 5 --quiet --summary "$tmp/s.json" --log "$tmp/logs" \
  agents/random.lua agents/sample.lua ./agents/random.lua > "$tmp/out"
[ "$(grep -c '^agents/random.lua ' "$tmp/out")" -eq 2 ] || { echo "random.lua should be one row (and one in the role table)"; cat "$tmp/out"; exit 1; }
grep -q '^\./agents/random.lua' "$tmp/out" && { echo "the same file under another name has a row of its own"; exit 1; }
python3 - "$tmp/s.json" "$tmp/logs" <<'PY'
import glob, json, math, sys
s = json.load(open(sys.argv[1]))
rows = {r["agent"]: r for r in s["agents"]}
assert set(rows) == {"agents/random.lua", "agents/sample.lua"}, rows.keys()
# "games" counts games, "seats" the seats a file held (3 and 2 a game here)
assert rows["agents/random.lua"]["games"] == 30 and rows["agents/sample.lua"]["games"] == 30, rows
assert rows["agents/random.lua"]["seats"] == 30 * 3 and rows["agents/sample.lua"]["seats"] == 30 * 2, rows
# The interval is per game (winrate.h): each game gives a file w wins over
# its m seats (random.lua holds 3 seats of each game, sample.lua 2), and
# the interval is Wilson's at the effective number of seats of the
# cluster-robust ratio estimator, with Student's t (29 degrees of freedom).
wolf = {"WEREWOLF", "POSSESSED"}
per = {"random": [], "sample": []}
for path in glob.glob(sys.argv[2] + "/*.log"):
    seats, winner = {}, None
    for line in open(path):
        f = line.strip().split(",")
        if f[0] == "0" and f[1] == "status":
            seats[f[2]] = (f[5], "WEREWOLF" if f[3] in wolf else "VILLAGER")
        if f[1] == "result":
            winner = f[4]
    for name in per:
        mine = [team for who, team in seats.values() if who == name]
        per[name].append((sum(t == winner for t in mine), len(mine)))
t29, z = 2.0452, 1.959963984540054
for name, agent in (("random", "agents/random.lua"), ("sample", "agents/sample.lua")):
    r, g = rows[agent], per[name]
    n, W, M = len(g), sum(w for w, m in g), sum(m for w, m in g)
    assert n == 30 and W == r["wins"] and M == r["seats"], (name, n, W, M, r)
    R = W / M
    v = n / (n - 1) * sum((w - R * m) ** 2 for w, m in g) / M ** 2
    ne = R * (1 - R) / v
    c = (R + t29 * t29 / (2 * ne)) / (1 + t29 * t29 / ne)
    h = t29 * math.sqrt(R * (1 - R) / ne + t29 * t29 / (4 * ne * ne)) / (1 + t29 * t29 / ne)
    assert abs(r["ci_low"] - (c - h)) < 1e-3 and abs(r["ci_high"] - (c + h)) < 1e-3, (r, c - h, c + h)
    assert sum(v["seats"] for v in r["by_role"].values()) == M
PY
# the interval in the table
grep -q '^agents/sample.lua .*%  [0-9.]*-[0-9.]*%' "$tmp/out" || { echo "no interval in the table"; cat "$tmp/out"; exit 1; }
"$bin" play --games 10 --seed 5 --quiet --summary "csv:$tmp/s.csv" agents/random.lua > /dev/null
head -1 "$tmp/s.csv" | grep -q '^agent,version,games,seats,wins,win_rate,ci_low,ci_high,[A-Z]*_seats,' || { echo "bad CSV header"; exit 1; }
[ "$(wc -l < "$tmp/s.csv")" -eq 2 ] || { echo "one CSV row expected"; exit 1; }
st=0; "$bin" play --games 2 --summary "$tmp/s.txt" agents/random.lua > /dev/null 2> "$tmp/err" || st=$?
[ $st -eq 2 ] && grep -q "neither FILE.json" "$tmp/err" || { echo "--summary s.txt: $st $(cat "$tmp/err")"; exit 1; }

# Head to head.
"$bin" play --vs --games 40 --seed 9 --quiet --summary "$tmp/vs.json" agents/sample.lua agents/random.lua > "$tmp/vs"
grep -q "^40 games of 5 players (preset aiwolf, seeds 9..28)" "$tmp/vs" || { echo "--vs: not 20 seeds"; cat "$tmp/vs"; exit 1; }
grep -q "head to head over 20 mirrored pairs of games: agents/sample.lua wins [+-][0-9.]* points (95% interval" "$tmp/vs" \
  || { echo "--vs: no head-to-head line"; cat "$tmp/vs"; exit 1; }
python3 - "$tmp/vs.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
a, b = s["agents"]
assert a["games"] == b["games"] == 40 and a["seats"] == b["seats"] == 100, (a, b)
for role in set(a["by_role"]) | set(b["by_role"]):
    assert a["by_role"][role]["seats"] == b["by_role"][role]["seats"], role
h = s["head_to_head"]
assert h["pairs"] == 20 and h["ci_low"] <= h["difference"] <= h["ci_high"], h
PY
# Too few pairs for an interval: said, never a 0-wide interval that reads as
# certainty (text and JSON): one pair; two pairs of an agent against a copy
# of itself, where every pair's difference is 0.
cp agents/random.lua "$tmp/same.lua"
for g in 2 4; do
  "$bin" play --vs --games $g --seed 9 --quiet --summary "$tmp/few$g.json" agents/random.lua "$tmp/same.lua" > "$tmp/few$g"
  grep -q "^head to head over $((g / 2)) mirrored pairs* of games: .* wins [+-]0.0 points (no interval can be given: [a-z ]*) against .*: no clear difference yet$" "$tmp/few$g" \
    || { echo "--vs --games $g: an interval from too few pairs"; cat "$tmp/few$g"; exit 1; }
  python3 - "$tmp/few$g.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["head_to_head"]
assert h["ci_low"] is None and h["ci_high"] is None and h["no_interval"], h
PY
done
st=0; "$bin" play --vs agents/random.lua > /dev/null 2> "$tmp/err" || st=$?
[ $st -eq 2 ] && grep -q "exactly two agent files" "$tmp/err" || { echo "--vs with one agent: $st"; exit 1; }

# The first fault of each agent version is said at once, once.
"$bin" play --games 20 --seed 1 agents/random.lua tests/contest/entries/crash/main.lua > /dev/null 2> "$tmp/ff"
[ "$(grep -c 'first fault of tests/contest/entries/crash/main.lua@[0-9a-f]* (Agent\[[0-9]*\]): DAILY_INITIALIZE error: update(): tests/contest/entries/crash/main.lua:5:' "$tmp/ff")" -eq 1 ] \
  || { echo "the first fault is not said once:"; cat "$tmp/ff"; exit 1; }
grep -q "first fault of agents/random.lua" "$tmp/ff" && { echo "a fault for random.lua?"; exit 1; }

# Versions: a file changed while watching is a row of its own.
mkdir "$tmp/agent"
printf 'return { talk = function() return "Over" end } -- a\n' > "$tmp/agent/me.lua"
"$bin" play --games 0 --players 5 --seed 1 --quiet --watch --log "$tmp/wl" "$tmp/agent/me.lua" agents/random.lua > "$tmp/w" 2> "$tmp/werr" &
pid=$!
wait_logs "$tmp/wl" 2 # a game of the first version is over
printf 'return { talk = function() return "Skip" end } -- b\n' > "$tmp/new"; mv "$tmp/new" "$tmp/agent/me.lua"
wait_line "$tmp/werr" reloaded
n=$(logs "$tmp/wl"); wait_logs "$tmp/wl" $((n + 1)) # and one of the second
kill -INT $pid
wait $pid || true
[ "$(grep -c "^$tmp/agent/me.lua@" "$tmp/w")" -ge 4 ] || { echo "no rows per version:"; cat "$tmp/w"; exit 1; }
echo ok
