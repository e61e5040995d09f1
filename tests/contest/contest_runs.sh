#!/bin/sh
# `aiwolf contest` end to end, on six entries (three sample agents, an entry
# that raises errors, one that answers garbage, one that does not load):
#  - the same seed gives the same games (games.tsv, every column but the
#    times) and the same results, with 2 jobs and with 1;
#  - a contest interrupted (Ctrl-C) and continued, a games.tsv cut short in
#    the middle of a line (a power loss), and a worker killed in the middle
#    of a game all end with the same games;
#  - two shards merged give the same games;
#  - every game's log is legal (aiwolf check) and reproduced (aiwolf replay)
#    under the rules written beside it, with no options;
#  - seating is fair: seats per entry differ by at most one, and every
#    entry's share of each role is within 0.05 of what its seats lead one to
#    expect;
#  - the faulty entries' faults are counted against them, none against the
#    others;
#  - bad usage gets a clear message.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp" 2>/dev/null || true; rm -rf "$tmp"' EXIT
E="agents/random.lua agents/sample.lua agents/tutorial.lua tests/contest/entries/crash tests/contest/entries/garbage tests/contest/entries/broken"
run() { out=$1; shift; "$bin" contest --quiet --games-per-entry 60 --seed 42 --out "$tmp/$out" "$@" $E 2> "$tmp/$out.err"; }
games() { cut -f1-12 "$tmp/$1/games.tsv"; }
# The results without the times per call (the last five columns: CPU and
# wall-clock time, which depend on the machine).
results() { awk -F, -v OFS=, '{ NF -= 5; print }' "$tmp/$1/results.csv"; }

run a --jobs 2
n=$(wc -l < "$tmp/a/games.tsv")
[ "$n" -eq 24 ] || { echo "6 entries x 60 games at 15 players should be 24 games, got $n"; exit 1; }
grep -q "broken/main.lua cannot start" "$tmp/a.err" || { echo "no warning for the broken entry:"; cat "$tmp/a.err"; exit 1; }
# The logs check and replay under their own rules (logs/aiwolf.rules), no options.
"$bin" check --quiet "$tmp"/a/logs/*.log.gz
"$bin" replay --quiet "$tmp"/a/logs/*.log.gz
for f in report.md results.csv results.json; do [ -s "$tmp/a/$f" ] || { echo "no $f"; exit 1; }; done
# games.tsv is in game order once the contest is complete.
cut -f1 "$tmp/a/games.tsv" | sort -c -n

run b --jobs 2
games a > "$tmp/ga"; games b > "$tmp/gb"
cmp -s "$tmp/ga" "$tmp/gb" || { echo "same seed, different games"; diff "$tmp/ga" "$tmp/gb" | head; exit 1; }
run c --jobs 1
games c > "$tmp/gc"
cmp -s "$tmp/ga" "$tmp/gc" || { echo "1 job and 2 jobs differ"; exit 1; }
results a > "$tmp/ra"; results c > "$tmp/rc"
cmp -s "$tmp/ra" "$tmp/rc" || { echo "results differ"; diff "$tmp/ra" "$tmp/rc"; exit 1; }

# Interrupted after a few games, then continued.
"$bin" contest --quiet --games-per-entry 60 --seed 42 --jobs 2 --out "$tmp/d" $E 2> "$tmp/d.err" &
pid=$!
i=0
while [ "$(cat "$tmp/d/games.tsv" 2>/dev/null | wc -l)" -lt 8 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
kill -INT $pid
st=0; wait $pid || st=$?
[ $st -eq 1 ] || { echo "an interrupted contest should exit 1, got $st"; cat "$tmp/d.err"; exit 1; }
grep -q "Run the same command again" "$tmp/d.err" || { echo "no hint to continue:"; cat "$tmp/d.err"; exit 1; }
part=$(wc -l < "$tmp/d/games.tsv")
[ "$part" -lt 24 ] || { echo "the interruption came too late to test anything"; exit 1; }
# The seed is kept in the folder: continuing needs no --seed.
"$bin" contest --quiet --games-per-entry 60 --jobs 2 --out "$tmp/d" $E 2> "$tmp/d.err"
games d > "$tmp/gd"
cmp -s "$tmp/ga" "$tmp/gd" || { echo "interrupted and continued differs"; exit 1; }
# Its provenance: the interrupted session and the one that finished it.
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['provenance']; s=p['sessions']; \
  assert [x['status'] for x in s] == ['interrupted', 'complete'], s; \
  assert sum(x['games'] for x in s) == 24 and p['finished'] == s[-1]['end'], p" "$tmp/d/results.json" ||
  { echo "the provenance of an interrupted contest"; exit 1; }

# A power loss: the file ends in the middle of a line, and a line is lost.
cp -r "$tmp/a" "$tmp/e"
head -c 4000 "$tmp/a/games.tsv" > "$tmp/e/games.tsv"
sed -i 3d "$tmp/e/games.tsv"
run e --jobs 2
games e > "$tmp/ge"
cmp -s "$tmp/ga" "$tmp/ge" || { echo "a contest cut short and continued differs"; exit 1; }

# A worker killed in the middle: its unit is played again.
"$bin" contest --quiet --games-per-entry 60 --seed 42 --jobs 2 --out "$tmp/f" $E 2> "$tmp/f.err" &
pid=$!
i=0
while [ "$(cat "$tmp/f/games.tsv" 2>/dev/null | wc -l)" -lt 4 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
pkill -KILL -f -o -- "contest --worker --dir $tmp/f" || { echo "no worker to kill"; exit 1; }
wait $pid || { echo "the contest failed after a worker died:"; cat "$tmp/f.err"; exit 1; }
grep -q "a worker died" "$tmp/f.err" || { echo "a dead worker was not reported:"; cat "$tmp/f.err"; exit 1; }
games f > "$tmp/gf"
cmp -s "$tmp/ga" "$tmp/gf" || { echo "a contest with a dead worker differs"; exit 1; }

# Two shards merged.
run s1 --jobs 1 --shard 1/2
run s2 --jobs 1 --shard 2/2
n1=$(wc -l < "$tmp/s1/games.tsv"); n2=$(wc -l < "$tmp/s2/games.tsv")
[ $((n1 + n2)) -eq 24 ] && [ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || { echo "shards of $n1 and $n2 games"; exit 1; }
"$bin" contest merge --out "$tmp/m" "$tmp/s1" "$tmp/s2" > /dev/null 2> "$tmp/merge.err"
# its progress: a line per slice folder, one before the reports
grep -q "^aiwolf contest merge: slice folder 1 of 2, $tmp/s1: $n1 games and their logs$" "$tmp/merge.err" &&
  grep -q "^aiwolf contest merge: slice folder 2 of 2, $tmp/s2: $n2 games and their logs$" "$tmp/merge.err" &&
  grep -q "^aiwolf contest merge: 24 of 24 games merged; writing the reports$" "$tmp/merge.err" ||
  { echo "merge's progress:"; cat "$tmp/merge.err"; exit 1; }
"$bin" contest merge --quiet --out "$tmp/mq" "$tmp/s1" "$tmp/s2" > /dev/null 2> "$tmp/merge.err"
[ ! -s "$tmp/merge.err" ] || { echo "merge --quiet said:"; cat "$tmp/merge.err"; exit 1; }
games m > "$tmp/gm"
cmp -s "$tmp/ga" "$tmp/gm" || { echo "merged shards differ"; exit 1; }
results m > "$tmp/rm"
cmp -s "$tmp/ra" "$tmp/rm" || { echo "merged results differ"; exit 1; }
cmp -s "$tmp/a/logs/aiwolf.rules" "$tmp/m/logs/aiwolf.rules" || { echo "merge lost logs/aiwolf.rules"; exit 1; }
# The merged provenance: both slices' sessions, the entries' SHA-256.
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['provenance']; \
  assert sorted(s['shard'] for s in p['sessions']) == ['1/2', '2/2'], p['sessions']; \
  assert all(len(e['sha256']) == 64 for e in p['entries']), p['entries']" "$tmp/m/results.json" ||
  { echo "merged provenance"; exit 1; }
"$bin" check --quiet "$tmp"/m/logs/*.log.gz

# Fairness: seats per entry and role shares.
# games: the distinct games an entry played in; seats: the seats it held
# (6 entries at 15 seats: two or three each per game).
python3 tests/contest/check_counts.py "$tmp/a"
python3 - "$tmp/a/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["contest"]["fairness"]
assert f["seats_per_entry_max"] - f["seats_per_entry_min"] <= 1, f
assert f["role_share_max_dev"] <= 0.05, f
games = {e["name"]: e for e in r["entries"] + r["not_ranked"]}
for name in ("random", "sample", "tutorial"):
    assert sum(games[name]["faults"].values()) == 0, (name, games[name]["faults"])
assert games["crash"]["faults"]["error"] > 100, games["crash"]["faults"]
assert games["garbage"]["faults"]["reply"] > 10, games["garbage"]["faults"]
assert games["broken"]["faults"]["lost"] > 100, games["broken"]["faults"]
assert sum(e["seats"] for e in r["entries"] + r["not_ranked"]) == 360
assert {"broken", "crash", "garbage"} == {e["name"] for e in r["not_ranked"]}, r["not_ranked"]
PY

# Instances: fresh every game in seed2015, one per set in the regulation
# (the counter entry says in a fault note which game of its instance each
# one is; any other note of it is a broken info).
"$bin" contest --quiet --games-per-entry 20 --seed 4 --out "$tmp/i1" agents/random.lua tests/contest/entries/counter 2>/dev/null > /dev/null
"$bin" contest --quiet --format regulation --sets 1 --set-games 6 --seed 4 --out "$tmp/i2" agents/random.lua tests/contest/entries/counter 2>/dev/null > /dev/null
notes() { cat "$tmp/$1"/logs/*.faults | grep "	counter	INITIALIZE" | sed 's/.*instance game \([0-9]*\) .*/\1/' | sort -n | uniq | tr '\n' ' '; }
[ "$(notes i1)" = "1 " ] || { echo "seed2015 reused an instance: games $(notes i1)"; exit 1; }
[ "$(notes i2)" = "1 2 3 4 5 6 " ] || { echo "a regulation set's instances played games $(notes i2)"; exit 1; }
if cat "$tmp"/i1/logs/*.faults "$tmp"/i2/logs/*.faults | grep "	counter	" | grep -v "instance game\|only counted"; then
  echo "the counter entry saw a broken info"; exit 1
fi
"$bin" check --quiet --preset regulation "$tmp"/i2/logs/*.log.gz

# Bad usage.
expect() { msg=$1; shift; st=0; "$bin" contest "$@" > /dev/null 2> "$tmp/err" || st=$?
  [ $st -eq 2 ] && grep -qF -e "$msg" "$tmp/err" || { echo "contest $*: status $st, $(cat "$tmp/err")"; exit 1; }; }
expect "--out DIR is required" agents/random.lua
expect "no entries given" --out "$tmp/x"
expect "no entry 'nope.lua'" --out "$tmp/x" nope.lua
expect "has no main.lua" --out "$tmp/x" tests/contest
expect "given twice" --out "$tmp/x" agents/random.lua agents/random.lua
expect "--format is seed2015 or regulation" --format nope --out "$tmp/x" agents/random.lua
expect "--players takes" --players 2 --out "$tmp/x" agents/random.lua
expect "--shard is I/N" --shard 3/2 --out "$tmp/x" agents/random.lua
expect "--shard needs --seed" --shard 1/2 --out "$tmp/x" agents/random.lua
# Another contest in the same folder is refused, saying what differs.
st=0; "$bin" contest --quiet --games-per-entry 60 --seed 43 --out "$tmp/a" $E 2> "$tmp/err" || st=$?
[ $st -eq 2 ] && grep -qF "holds another contest (it has 'seed 42'" "$tmp/err" || { echo "reused folder: $st $(cat "$tmp/err")"; exit 1; }
echo ok
