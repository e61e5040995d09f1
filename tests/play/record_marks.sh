#!/bin/sh
# The readable record marks each talk turn ("--- talk turn N ---"), ends
# each vote round with its tally (the counts of the vote lines above it,
# most first), and with --hide-over leaves out talks that only say Over or
# Skip (the turn markers stay); agent prints follow their day's header.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for seed in 1 2 3 4 5 6; do
  "$bin" play --players 9 --seed $seed agents/sample.lua agents/random.lua > "$tmp/r" 2>/dev/null
  grep -q "^  --- talk turn 0 ---$" "$tmp/r" || { echo "seed $seed: no turn marker"; exit 1; }
  python3 - "$tmp/r" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
votes, kind, rounds = {}, None, 0
for line in lines:
    m = re.match(r"  (vote   |attack vote) (Agent\[\d+\]) -> (Agent\[\d+\])", line)
    if m:
        votes[m.group(3)] = votes.get(m.group(3), 0) + 1
        continue
    m = re.match(r"  (tally  |attack tally) (.*)$", line)
    if m:
        got = [(a, int(n)) for a, n in (p.rsplit(" ", 1) for p in m.group(2).split(", "))]
        assert dict(got) == votes, (line, votes)
        counts = [n for _, n in got]
        assert counts == sorted(counts, reverse=True), line
        votes, rounds = {}, rounds + 1
        continue
    assert not votes, ("votes without a tally before: " + line)
assert rounds >= 2, rounds
PY
  "$bin" play --players 9 --seed $seed --hide-over agents/sample.lua agents/random.lua > "$tmp/h" 2>/dev/null
  if grep -Eq "\): (Over|Skip)$" "$tmp/h"; then echo "seed $seed: --hide-over shows Over"; exit 1; fi
  # the rest of the record is the same
  grep -Ev "\): (Over|Skip)$" "$tmp/r" > "$tmp/r2"
  cmp -s "$tmp/r2" "$tmp/h" || { echo "seed $seed: --hide-over changed more than the Over lines"; diff "$tmp/r2" "$tmp/h" | head; exit 1; }
done
# What an agent prints comes after the header of the day it is printed in,
# even when the record and the prints go to one file.
mkdir "$tmp/p"
printf 'local a = {}\nfunction a:dayStart() print("start of a day") end\nreturn a\n' > "$tmp/p/p.lua"
"$bin" play --seed 2 "$tmp/p/p.lua" agents/random.lua > "$tmp/mixed" 2>&1
python3 - "$tmp/mixed" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("Game:"), lines[0]
day = None
for i, line in enumerate(lines):
    if line.startswith("Day "):
        day = i
    if line.endswith("start of a day"):
        assert day is not None and all(not l.startswith("  talk") for l in lines[day:i]), (i, line)
assert day is not None
PY
# With --events -, standard output holds the events alone (the record goes
# to standard error).
"$bin" play --seed 2 --events - agents/random.lua > "$tmp/ev" 2> "$tmp/rec"
if grep -qv '^{' "$tmp/ev"; then echo "--events -: something else on stdout"; grep -v '^{' "$tmp/ev" | head -3; exit 1; fi
grep -q '^Game: 5 players' "$tmp/rec" || { echo "--events -: no record on stderr"; exit 1; }
echo ok
