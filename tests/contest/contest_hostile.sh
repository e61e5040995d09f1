#!/bin/sh
# Entries that misbehave in every way a contest sees — an endless loop, a
# memory hog, floods of output and huge talks, errors, garbage answers, a
# file that does not compile — beside two sample agents: the contest
# finishes, every game is legal, each hostile entry's faults are counted
# against it (with their messages in logs/N.faults), and the sample agents
# have none.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
H=tests/contest/entries
"$bin" contest --quiet --games-per-entry 12 --seed 5 --jobs 2 --out "$tmp/h" \
  agents/random.lua agents/sample.lua $H/loop $H/hog $H/flood $H/crash $H/garbage $H/broken 2> "$tmp/err" \
  || { echo "the contest did not finish:"; cat "$tmp/err"; exit 1; }
"$bin" check --quiet --preset seed2015 "$tmp"/h/logs/*.log.gz
python3 - "$tmp/h/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = {x["name"]: x for x in r["entries"] + r["not_ranked"]}
assert r["contest"]["games_done"] == r["contest"]["games_total"] > 0, r["contest"]
for good in ("random", "sample"):
    assert sum(e[good]["faults"].values()) == 0, (good, e[good]["faults"])
f = lambda name, kind: e[name]["faults"][kind]
assert f("loop", "timeout") > 0, e["loop"]["faults"]
assert f("hog", "memory") + f("hog", "timeout") > 0, e["hog"]["faults"]
assert f("crash", "error") > 0 and f("garbage", "reply") > 0, (e["crash"]["faults"], e["garbage"]["faults"])
assert f("broken", "error") + f("broken", "lost") > 0, e["broken"]["faults"]
seats = [x["seats"] for x in r["entries"] + r["not_ranked"]]
# The entries that loop, hog memory, crash, answer garbage or do not load
# are listed apart (the flood's output and long talks cost it no faults).
ranked = {x["name"] for x in r["entries"]}
assert {"random", "sample"} <= ranked and not ranked & {"loop", "hog", "crash", "garbage", "broken"}, ranked
assert all(x["why"] for x in r["not_ranked"])
assert min(seats) >= 12 and max(seats) - min(seats) <= 1, seats
PY
grep -h "loop" "$tmp"/h/logs/*.faults | grep -q "timeout" || { echo "no timeout note for loop"; exit 1; }
grep -h "broken" "$tmp"/h/logs/*.faults | grep -q "expected near" || { echo "no compile error note for broken"; exit 1; }
grep -q "broken/main.lua cannot start" "$tmp/err" || { echo "the broken entry was not reported:"; cat "$tmp/err"; exit 1; }
echo ok
