#!/bin/sh
# play --games draws each game's agent numbers from that game's seed, as the
# official server gives numbers at random: an agent file does not keep the
# same numbers in every game; --fixed-seats keeps the order given; game i of
# a run is the game its seed plays in any run; --deal's role follows its
# seat's agent; --vs pairs swap the agents between the same numbers.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "the numbers of NAME" in a log: e.g. "1 4" for sample at 1 and 4.
numbers_of() { grep "^0,status,.*,$2\$" "$1" | cut -d, -f3 | sort -n | tr '\n' ' '; }

"$bin" play --games 20 --seed 100 --quiet --jobs 1 --log "$tmp/drawn" agents/sample.lua agents/random.lua > /dev/null
"$bin" play --games 20 --seed 100 --quiet --jobs 1 --fixed-seats --log "$tmp/fixed" agents/sample.lua agents/random.lua > /dev/null
seen=""
for s in $(seq 100 119); do
  f=$(numbers_of "$tmp/fixed/$s.log" sample)
  [ "$f" = "1 3 5 " ] || { echo "--fixed-seats: sample at $f in game $s, not 1 3 5"; exit 1; }
  d=$(numbers_of "$tmp/drawn/$s.log" sample)
  [ "$(echo $d | wc -w)" -eq 3 ] || { echo "game $s: sample at '$d': not three seats"; exit 1; }
  case " $seen " in *" $d|"*) ;; *) seen="$seen $d|" ;; esac
done
kinds=$(echo "$seen" | tr '|' '\n' | grep -c '[0-9]')
# 10 possible sets of three numbers out of five; 20 games give many of them
[ "$kinds" -ge 5 ] || { echo "sample's numbers over 20 games took only $kinds sets:$seen"; exit 1; }

# A game's numbers come from its seed: game 101 of a run from 100 is the
# first game of a run from 101 (with another number of jobs as well).
"$bin" play --games 2 --seed 101 --quiet --jobs 2 --log "$tmp/from101" agents/sample.lua agents/random.lua > /dev/null
cmp "$tmp/drawn/101.log" "$tmp/from101/101.log" || { echo "game 101 differs between two runs"; exit 1; }
cmp "$tmp/drawn/102.log" "$tmp/from101/102.log" || { echo "game 102 differs between two runs"; exit 1; }

# --deal: the role follows the seat's agent wherever it is numbered.
"$bin" play --games 10 --seed 7 --quiet --deal 2=SEER --log "$tmp/deal" agents/sample.lua agents/random.lua > /dev/null
for s in $(seq 7 16); do
  grep -q "^0,status,[0-9]*,SEER,ALIVE,random\$" "$tmp/deal/$s.log" ||
    { echo "--deal 2=SEER: random (seat 2 in the order given) is not the seer in game $s"; exit 1; }
done
n1=$(grep -h "^0,status,[0-9]*,SEER," "$tmp"/deal/*.log | cut -d, -f3 | sort -u | wc -l)
[ "$n1" -ge 2 ] || { echo "--deal: the seer had the same number in all 10 games"; exit 1; }

# --vs: both games of a pair have the same numbers, each agent swapped.
"$bin" play --vs --games 6 --seed 40 --quiet --jobs 1 --events "$tmp/vs.jsonl" agents/sample.lua agents/random.lua > /dev/null
python3 - "$tmp/vs.jsonl" <<'EOF'
import json, sys
seats = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "begin":
        seats.append({x["agent"]: (x["name"], x["role"]) for x in e["agents"]})
assert len(seats) == 6, f"{len(seats)} games in the events, not 6"
moved = False
for k in range(0, 6, 2):
    a, b = seats[k], seats[k + 1]
    assert sorted(a) == sorted(b) == [1, 2, 3, 4, 5], (a, b)
    for n in a:
        assert a[n][1] == b[n][1], f"pair {k//2}: agent {n} has role {a[n][1]} then {b[n][1]}"
        assert {a[n][0], b[n][0]} == {"sample", "random"}, f"pair {k//2}: agent {n} is {a[n][0]} in both games"
    if [a[n][0] for n in (1, 2, 3, 4, 5)] != ["sample", "random", "sample", "random", "sample"]:
        moved = True
assert moved, "--vs: sample sat at 1 3 5 in all three pairs"
EOF
echo "numbers: ok"
