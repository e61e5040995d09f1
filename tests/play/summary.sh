#!/bin/sh
# The summary of `play --games` answers "is my agent better?":
#  - the same file given twice is one row; its games count every seat;
#  - each row has a 95 % Wilson interval that agrees with its counts;
#  - --summary writes the rows as JSON or CSV for tools (and refuses a file
#    name that says neither);
#  - --vs plays mirrored pairs on one seed (each agent plays the other's
#    roles: equal role counts), and prints the difference with its interval;
#  - each agent version's first fault is printed at once, with file:line;
#  - with --watch, a changed file is a row of its own (agent@version).
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" play --games 30 --seed 5 --quiet --summary "$tmp/s.json" \
  agents/random.lua agents/sample.lua ./agents/random.lua > "$tmp/out"
[ "$(grep -c '^agents/random.lua ' "$tmp/out")" -eq 2 ] || { echo "random.lua should be one row (and one in the role table)"; cat "$tmp/out"; exit 1; }
grep -q '^\./agents/random.lua' "$tmp/out" && { echo "the same file under another name has a row of its own"; exit 1; }
python3 - "$tmp/s.json" <<'PY'
import json, math, sys
s = json.load(open(sys.argv[1]))
rows = {r["agent"]: r for r in s["agents"]}
assert set(rows) == {"agents/random.lua", "agents/sample.lua"}, rows.keys()
assert rows["agents/random.lua"]["games"] == 30 * 3 and rows["agents/sample.lua"]["games"] == 30 * 2
z = 1.959963984540054
for r in rows.values():
    n, w = r["games"], r["wins"]
    p = w / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert abs(r["ci_low"] - (c - h)) < 1e-5 and abs(r["ci_high"] - (c + h)) < 1e-5, r
    assert sum(v["games"] for v in r["by_role"].values()) == n
PY
# the interval in the table
grep -q '^agents/sample.lua .*%  [0-9.]*-[0-9.]*%' "$tmp/out" || { echo "no interval in the table"; cat "$tmp/out"; exit 1; }
"$bin" play --games 10 --seed 5 --quiet --summary "csv:$tmp/s.csv" agents/random.lua > /dev/null
head -1 "$tmp/s.csv" | grep -q '^agent,version,games,wins,win_rate,ci_low,ci_high,' || { echo "bad CSV header"; exit 1; }
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
assert a["games"] == b["games"] == 100, (a["games"], b["games"])
for role in set(a["by_role"]) | set(b["by_role"]):
    assert a["by_role"][role]["games"] == b["by_role"][role]["games"], role
h = s["head_to_head"]
assert h["pairs"] == 20 and h["ci_low"] <= h["difference"] <= h["ci_high"], h
PY
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
"$bin" play --games 0 --players 5 --seed 1 --quiet --watch "$tmp/agent/me.lua" agents/random.lua > "$tmp/w" 2> "$tmp/werr" &
pid=$!
sleep 0.8
printf 'return { talk = function() return "Skip" end } -- b\n' > "$tmp/new"; mv "$tmp/new" "$tmp/agent/me.lua"
sleep 0.8
kill -INT $pid
wait $pid || true
[ "$(grep -c "^$tmp/agent/me.lua@" "$tmp/w")" -ge 4 ] || { echo "no rows per version:"; cat "$tmp/w"; exit 1; }
echo ok
