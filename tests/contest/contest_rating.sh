#!/bin/sh
# The skill rating in real contests (issue 22, part 7):
#  - --duplicate 3: every deal is played three times in a row with the same
#    seed and the same role in each seat, the same entries rotated through
#    the seats; the same games with 1 job and with 2; the report's rating
#    counts the deals as clusters;
#  - --until-separated stops when the two entries are separated at 95 %
#    (the sample agent against one that plays against its own team, five
#    players), and `contest report` draws the same rounds from games.tsv;
#  - --until-separated stops at --max-games when the entries do not
#    separate;
#  - --until-separated looks only at the entries the fault policy ranks: an
#    entry that crashes in every call beside two working ones is in no pair
#    in doubt (one pair at most), and the run stops when those two separate;
#    `contest report --fault-policy` draws the rounds under contest.cfg's
#    policy;
#  - the report's files carry the rating; bad usage gets a clear message.
# The separated contest runs with --budget 1000, so that a loaded machine
# cannot make a game differ by a time-out when verify plays it again.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$@"; exit 1; }

# Duplicate deals.
E="agents/random.lua agents/sample.lua agents/tutorial.lua tests/contest/entries/traitor"
"$bin" contest --quiet --duplicate 3 --games-per-entry 45 --seed 5 --jobs 2 --out "$tmp/d" $E 2> "$tmp/d.err"
"$bin" contest --quiet --duplicate 3 --games-per-entry 45 --seed 5 --jobs 1 --out "$tmp/d1" $E 2> "$tmp/d1.err"
n=$(wc -l < "$tmp/d/games.tsv")
[ "$n" -eq 12 ] || fail "4 entries x 45 games at 15 players in deals of 3 should be 12 games, got $n"
cut -f1-12 "$tmp/d/games.tsv" > "$tmp/g2"; cut -f1-12 "$tmp/d1/games.tsv" > "$tmp/g1"
cmp -s "$tmp/g1" "$tmp/g2" || fail "--duplicate: 1 job and 2 jobs differ"
# The rating is the same whatever order the workers finished the games in.
skill() { awk '/^## /{on = /^## Skill/} on' "$1"; }   # the section, up to the next
skill "$tmp/d/report.md" > "$tmp/s2"; skill "$tmp/d1/report.md" > "$tmp/s1"
[ -s "$tmp/s1" ] && cmp -s "$tmp/s1" "$tmp/s2" || fail "--duplicate: the rating differs between 1 job and 2"
grep -q "^duplicate	3$" "$tmp/d/contest.cfg" || fail "contest.cfg does not keep --duplicate"
# Each group of three: one seed, one deal, the same entries, in other seats.
awk -F'\t' '
  function sorted(s,   a, n, i, j, t) { n = split(s, a, ","); for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }; t = a[1]; for (i = 2; i <= n; i++) t = t "," a[i]; return t }
  { k = int($1 / 3) }
  $1 % 3 == 0 { seed = $4; roles = $7; set = sorted($6); first = $6; next }
  {
    if ($4 != seed) { print "game " $1 ": another seed than its deal"; bad = 1 }
    if ($7 != roles) { print "game " $1 ": other roles than its deal"; bad = 1 }
    if (sorted($6) != set) { print "game " $1 ": other entries than its deal"; bad = 1 }
    if ($6 == first) { print "game " $1 ": the entries are not rotated"; bad = 1 }
  }
  END { exit bad }' "$tmp/d/games.tsv" || fail "duplicate deals are not rotated copies"
python3 - "$tmp/d/results.json" <<'PY' || fail "results.json: the rating is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rating"]
assert r["clusters"] == 4, r["clusters"]              # 12 games, 4 deals
assert r["games_fitted"] + r["games_skipped"] == 12
assert len(r["entries"]) == 4 and len(r["outranks"]) == 4
for i, e in enumerate(r["entries"]):
    assert e["ci_low"] < e["skill"] < e["ci_high"]
    assert e["skill_rank"] == i + 1
    for j in range(4):
        if i != j:
            assert abs(r["outranks"][i][j] + r["outranks"][j][i] - 1) < 1e-3
    assert set(e["by_role"]) <= {"VILLAGER", "SEER", "MEDIUM", "BODYGUARD", "POSSESSED", "WEREWOLF"}
assert abs(sum(e["skill"] for e in r["entries"])) < 1e-4   # centred
PY
grep -q "^## Skill, apart from the luck of the deal" "$tmp/d/report.md" || fail "report.md has no skill section"
head -1 "$tmp/d/results.csv" | grep -q ",skill_rank,skill,skill_se,skill_low,skill_high,p_outranks_next," ||
  fail "results.csv has no skill columns"

# Games where they matter: separated.
"$bin" contest --players 5 --games-per-entry 15 --seed 7 --jobs 2 --budget 1000 --until-separated --max-games 400 \
  --out "$tmp/u" agents/sample.lua tests/contest/entries/traitor > "$tmp/u.out" 2> "$tmp/u.err" ||
  fail "--until-separated failed: $(cat "$tmp/u.err")"
grep -q "every adjacent pair separated at 95 %" "$tmp/u.err" || fail "not separated: $(cat "$tmp/u.err")"
grep -q "round 1," "$tmp/u.err" || fail "no round was played (the test needs one): $(cat "$tmp/u.err")"
n=$(wc -l < "$tmp/u/games.tsv")
[ "$n" -gt 6 ] && [ "$n" -lt 400 ] || fail "--until-separated played $n games"
cut -f1 "$tmp/u/games.tsv" | sort -c -n
python3 -c "
import json,sys; r=json.load(open('$tmp/u/results.json'))['rating']
assert r['unresolved_adjacent'] == 0 and r['entries'][0]['p_outranks_next'] >= 0.95, r['entries']
assert r['entries'][0]['name'] == 'sample'" || fail "the separated report is wrong"
cp "$tmp/u/report.md" "$tmp/u.md"
"$bin" contest report "$tmp/u" > /dev/null
cmp -s "$tmp/u.md" "$tmp/u/report.md" || fail "'contest report' draws other rounds"
# ... and so does 'contest verify', which plays them all again.
"$bin" contest verify --jobs 2 "$tmp/u" > "$tmp/v.out" || fail "verify failed: $(cat "$tmp/v.out")"
grep -qx "$n games played again (all $n played): $n the same, 0 differ" "$tmp/v.out" ||
  fail "verify of an --until-separated contest: $(cat "$tmp/v.out")"

# A folder whose rounds an earlier version drew (over every entry: its
# contest.cfg has no 'rounds' line) is refused, not re-drawn and misread.
cp -r "$tmp/u" "$tmp/old"
grep -qx "rounds	ranked" "$tmp/old/contest.cfg" || fail "contest.cfg does not say how its rounds were drawn"
grep -vx "rounds	ranked" "$tmp/u/contest.cfg" > "$tmp/old/contest.cfg"
if "$bin" contest report "$tmp/old" > /dev/null 2> "$tmp/old.err"; then
  fail "'contest report' took rounds an earlier version drew"
fi
grep -q "drawn by an earlier version" "$tmp/old.err" || fail "no reason given: $(cat "$tmp/old.err")"

# Games where they matter: only the entries the policy ranks count. The
# crashing entry is never ranked; counted, it kept the run going for 21
# rounds with two pairs in doubt.
"$bin" contest --players 5 --games-per-entry 15 --seed 7 --jobs 2 --budget 1000 --until-separated --max-games 300 \
  --out "$tmp/e" agents/sample.lua tests/contest/entries/traitor tests/contest/entries/crash > /dev/null 2> "$tmp/e.err" ||
  fail "--until-separated with a crashing entry failed: $(cat "$tmp/e.err")"
grep -q "every adjacent pair separated at 95 %" "$tmp/e.err" || fail "not separated: $(cat "$tmp/e.err")"
grep -q "round 1," "$tmp/e.err" || fail "no round was played (the test needs one): $(cat "$tmp/e.err")"
! grep -q "adjacent pairs not separated" "$tmp/e.err" ||
  fail "a pair with the unranked entry was counted: $(grep 'not separated' "$tmp/e.err")"
python3 -c "
import json; d=json.load(open('$tmp/e/results.json')); r=d['rating']
assert r['unresolved_adjacent'] == 0 and [e['name'] for e in r['entries']] == ['sample', 'traitor'], r['entries']" ||
  fail "the report of the run with a crashing entry is wrong"
n=$(wc -l < "$tmp/e/games.tsv")
"$bin" contest report --fault-policy none "$tmp/e" > /dev/null 2> "$tmp/e2.err"
[ ! -s "$tmp/e2.err" ] || fail "report under another policy drew other rounds: $(cat "$tmp/e2.err")"
python3 -c "
import json; d=json.load(open('$tmp/e/results.json'))
assert d['contest']['games_done'] == d['contest']['games_total'] == $n, d['contest']" || fail "report under another policy counts other games"

# Games where they matter: the cap (two entries that do not separate in 30
# games).
"$bin" contest --quiet --games-per-entry 15 --seed 7 --jobs 2 --until-separated --max-games 30 \
  --out "$tmp/c" agents/random.lua agents/tutorial.lua 2> "$tmp/c.err" || fail "capped run failed"
n=$(wc -l < "$tmp/c/games.tsv")
[ "$n" -eq 30 ] || fail "--max-games 30 played $n games"
grep -q "^until-separated	30$" "$tmp/c/contest.cfg" || fail "contest.cfg does not keep the cap"
# Run again: the rounds are drawn again from games.tsv, nothing is left to play.
cp "$tmp/c/games.tsv" "$tmp/c.tsv"
"$bin" contest --games-per-entry 15 --jobs 2 --until-separated --max-games 30 \
  --out "$tmp/c" agents/random.lua agents/tutorial.lua > /dev/null 2> "$tmp/c2.err" || fail "run again failed"
grep -q "continuing .*: 30 of 30 games played" "$tmp/c2.err" || fail "run again: $(cat "$tmp/c2.err")"
cmp -s "$tmp/c.tsv" "$tmp/c/games.tsv" || fail "run again changed games.tsv"

# Both with another rule set (nlp5, five players): deals of three copies
# share their seed and roles, rounds are drawn, verify plays them again.
"$bin" contest --quiet --preset nlp5 --players 5 --duplicate 3 --until-separated --max-games 30 --games-per-entry 6 \
  --seed 3 --jobs 2 --budget 1000 --out "$tmp/n" agents/sample.lua tests/contest/entries/traitor 2> "$tmp/n.err" ||
  fail "--duplicate --until-separated with --preset nlp5 failed: $(cat "$tmp/n.err")"
grep -q "^preset	nlp5$" "$tmp/n/contest.cfg" || fail "contest.cfg does not keep the preset"
n=$(wc -l < "$tmp/n/games.tsv")
[ "$n" -gt 6 ] && [ $((n % 3)) -eq 0 ] || fail "--preset nlp5: $n games, not whole deals after a round"
awk -F'\t' '$1 % 3 == 0 { seed = $4; roles = $7; next } $4 != seed || $7 != roles { bad = 1 } END { exit bad }' \
  "$tmp/n/games.tsv" || fail "--preset nlp5: the copies of a deal differ"
"$bin" contest verify "$tmp/n" > "$tmp/nv.out" || fail "verify --preset nlp5: $(cat "$tmp/nv.out")"

# Bad usage.
st=0; "$bin" contest --max-games 10 --out "$tmp/x" agents/sample.lua 2> "$tmp/x.err" || st=$?
[ $st -eq 2 ] && grep -q "cap of --until-separated" "$tmp/x.err" || fail "--max-games alone: $st $(cat "$tmp/x.err")"
st=0; "$bin" contest --format regulation --duplicate 2 --out "$tmp/x" agents/sample.lua 2> "$tmp/x.err" || st=$?
[ $st -eq 2 ] && grep -q "for --format seed2015 (with any --preset" "$tmp/x.err" || fail "--duplicate with regulation: $st"
st=0; "$bin" contest --until-separated --seed 1 --shard 1/2 --out "$tmp/x" agents/sample.lua 2> "$tmp/x.err" || st=$?
[ $st -eq 2 ] && grep -q "shards" "$tmp/x.err" || fail "--until-separated with --shard: $st"
st=0; "$bin" contest --duplicate 0 --out "$tmp/x" agents/sample.lua 2> "$tmp/x.err" || st=$?
[ $st -eq 2 ] || fail "--duplicate 0: $st"
echo "contest_rating: ok"
