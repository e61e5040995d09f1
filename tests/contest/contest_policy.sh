#!/bin/sh
# Who is ranked, what is counted, and what a rerun gives, on 7 entries at 15
# seats (so every entry holds two or three seats of a game): two sample
# agents beside an entry that does not compile, one that calls os.exit in
# every call, one that raises errors, one that loops and one that fills its
# memory cap, all under a work budget (--work):
#  - the broken entries are listed apart with their reasons and figures and
#    appear in no rank, nor as the leader on the progress line;
#  - every entry's games are the distinct games games.tsv shows it in, its
#    seats the seats it held;
#  - CPU time per call is reported beside wall time, and the looping
#    entry's most CPU time in one call is its stopped call's;
#  - the same seed gives the same games.tsv (all but the times column),
#    faults included, and the same results, on 2 jobs twice and on 1 job;
#  - `contest report --fault-policy none` ranks the entries that answered
#    calls, never the ones that answered none.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
H=tests/contest/entries
E="agents/random.lua agents/sample.lua $H/broken $H/exit $H/crash $H/loop $H/hog"
run() { out=$1; shift; "$bin" contest --games-per-entry 6 --seed 11 --work 2000000 --out "$tmp/$out" "$@" $E \
  > "$tmp/$out.out" 2> "$tmp/$out.err" || { echo "contest $out failed:"; cat "$tmp/$out.err"; exit 1; }; }
run a --jobs 2
run b --jobs 2
run c --jobs 1
games() { cut -f1-12 "$tmp/$1/games.tsv"; }
results() { awk -F, -v OFS=, '{ NF -= 5; print }' "$tmp/$1/results.csv"; }
for x in b c; do
  games a > "$tmp/ga"; games $x > "$tmp/g$x"
  cmp -s "$tmp/ga" "$tmp/g$x" || { echo "run $x: other games or faults than run a"; diff "$tmp/ga" "$tmp/g$x" | head; exit 1; }
  results a > "$tmp/ra"; results $x > "$tmp/r$x"
  cmp -s "$tmp/ra" "$tmp/r$x" || { echo "run $x: other results than run a"; diff "$tmp/ra" "$tmp/r$x"; exit 1; }
done
"$bin" check --quiet --preset seed2015 "$tmp"/a/logs/*.log.gz
# The leader on the progress line is a ranked entry.
grep -o "leader [a-z]*" "$tmp/a.err" | sort -u > "$tmp/leaders"
! grep -v -e "leader random" -e "leader sample" -e "leaders" "$tmp/leaders" || { echo "a broken entry led"; exit 1; }
python3 tests/contest/check_counts.py "$tmp/a"
python3 - "$tmp/a/results.json" "$tmp/a/report.md" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ranked = {e["name"]: e for e in r["entries"]}
apart = {e["name"]: e for e in r["not_ranked"]}
assert sorted(ranked) == ["random", "sample"], sorted(ranked)
assert sorted(apart) == ["broken", "crash", "exit", "hog", "loop"], sorted(apart)
assert "does not load" in apart["broken"]["why"], apart["broken"]
assert "none of its" in apart["exit"]["why"] and apart["exit"]["faults"]["error"] > 0, apart["exit"]
assert "calls faulted" in apart["crash"]["why"], apart["crash"]
assert apart["loop"]["faults"]["timeout"] > 0 and apart["hog"]["faults"]["memory"] + apart["hog"]["faults"]["timeout"] > 0
for e in r["not_ranked"]:
    assert "rank" not in e and e["why"], e
for e in r["entries"]:
    assert sum(e["faults"].values()) == 0, e
    t = e["time"]
    assert 0 < t["cpu_us_median"] <= t["cpu_us_p99"] and t["cpu_us_max"] > 0, t
    assert e["ci_low"] <= e["win_rate"] <= e["ci_high"], e
# The looping entry was stopped by its work budget: its longest call ran
# until then (far more CPU than the sample agents' calls).
assert apart["loop"]["time"]["cpu_us_max"] > 10 * max(e["time"]["cpu_us_p99"] for e in r["entries"]), apart["loop"]["time"]
assert r["contest"]["work"] == 2000000 and r["contest"]["fault_policy"] == "calls=5%,games=50%", r["contest"]
md = open(sys.argv[2]).read()
assert "Not ranked:" in md and "does not load" in md and "no further tie-break" in md
PY
# The looping entry was stopped by its work budget, not by a clock.
grep -h "	loop	" "$tmp"/a/logs/*.faults | grep -q "work budget of 2000000 units exceeded" \
  || { echo "the loop was not stopped by the work budget"; grep -h "	loop	" "$tmp"/a/logs/*.faults | head -3; exit 1; }
# Another policy for the report: every entry that answered calls is ranked.
"$bin" contest report --fault-policy none "$tmp/a" > /dev/null
python3 - "$tmp/a/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted(e["name"] for e in r["not_ranked"]) == ["broken", "exit"], r["not_ranked"]
assert r["contest"]["fault_policy"] == "none"
PY
# Bad policies.
st=0; "$bin" contest --fault-policy calls=150% --out "$tmp/x" agents/random.lua 2> "$tmp/err" || st=$?
[ $st -eq 2 ] && grep -q "fault-policy is calls=" "$tmp/err" || { echo "bad policy: $st $(cat "$tmp/err")"; exit 1; }
st=0; "$bin" contest --work 0 --out "$tmp/x" agents/random.lua 2> "$tmp/err" || st=$?
[ $st -eq 2 ] && grep -q "work units" "$tmp/err" || { echo "bad work: $st $(cat "$tmp/err")"; exit 1; }
echo ok
