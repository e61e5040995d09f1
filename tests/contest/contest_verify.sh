#!/bin/sh
# Provenance and audit of a contest:
#  - results.json and report.md carry the program's version (aiwolf
#    --version), each entry's SHA-256 (as sha256sum computes it for a file
#    entry and for a folder entry's listing), the options, the master seed,
#    the start and end and the host's cores;
#  - `aiwolf contest verify` plays the games again through the contest's
#    workers and finds every log the same; --sample N plays N games, the same
#    N every time; a regulation contest (sets whose agents carry over) too;
#  - a log altered by one byte fails verify with its game and first
#    differing line; an entry altered since fails verify by name, and the
#    games without it are still played again;
#  - bad usage gets a clear message and status 2.
# The contests run with --budget 1000 (the outer kill at 20 s of wall time),
# so that a loaded machine cannot make a game differ by a time-out.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$tmp/e"
cp -r tests/contest/entries/counter tests/contest/entries/garbage tests/contest/entries/crash "$tmp/e/"
E="$tmp/e/counter $tmp/e/garbage $tmp/e/crash agents/sample.lua agents/random.lua agents/tutorial.lua"
"$bin" contest --quiet --players 5 --games-per-entry 5 --seed 31 --jobs 2 --budget 1000 --out "$tmp/c" $E 2> "$tmp/c.err" ||
  { cat "$tmp/c.err"; fail "the contest failed"; }
n=$(wc -l < "$tmp/c/games.tsv")
[ "$n" -eq 6 ] || fail "6 entries x 5 games at 5 players should be 6 games, got $n"

# Provenance in results.json.
version=$("$bin" --version | head -n 1 | cut -d' ' -f2)
folder_sha() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-64; }
python3 - "$tmp/c/results.json" "$version" "$(nproc)" \
  "$(folder_sha "$tmp/e/counter")" "$(folder_sha "$tmp/e/garbage")" "$(folder_sha "$tmp/e/crash")" \
  "$(sha256sum agents/sample.lua | cut -c1-64)" "$(sha256sum agents/random.lua | cut -c1-64)" \
  "$(sha256sum agents/tutorial.lua | cut -c1-64)" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
p = r["provenance"]
version, cores, shas = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
assert p["program_version"] == version, (p["program_version"], version)
assert p["report_version"] == version
iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
assert iso.match(p["started"]) and iso.match(p["finished"]) and p["started"] <= p["finished"], p
assert p["host_cores"] == cores and p["jobs"] == 2, p
o = p["options"]
assert o["seed"] == "31" == r["contest"]["seed"] and o["preset"] == "seed2015" and o["games_per_entry"] == 5, o
assert o["players"] == [5] and o["budget_ms"] == 1000 and o["memory_mb"] == 64 and o["set"] == [], o
names = ["counter", "garbage", "crash", "sample", "random", "tutorial"]
assert [e["name"] for e in p["entries"]] == names, p["entries"]
assert [e["sha256"] for e in p["entries"]] == shas, (p["entries"], shas)
s = p["sessions"]
assert len(s) == 1 and s[0]["games"] == 6 and s[0]["status"] == "complete" and s[0]["version"] == version, s
PY
grep -q "^## Provenance" "$tmp/c/report.md" || fail "report.md has no provenance"
grep -q "Played by aiwolf-lua $version" "$tmp/c/report.md" || fail "report.md lacks the version"
grep -q "master seed 31" "$tmp/c/report.md" || fail "report.md lacks the seed"
grep -qF "| sample | agents/sample.lua | $(sha256sum agents/sample.lua | cut -c1-64) |" "$tmp/c/report.md" ||
  fail "report.md lacks sample's SHA-256"
# `contest report` writes the same provenance again from the folder.
cp "$tmp/c/results.json" "$tmp/before.json"
"$bin" contest report "$tmp/c" > /dev/null
python3 -c "import json,sys; a,b=(json.load(open(f))['provenance'] for f in sys.argv[1:]); assert a==b,(a,b)" \
  "$tmp/before.json" "$tmp/c/results.json" || fail "contest report changed the provenance"

# verify: every game the same.
"$bin" contest verify --jobs 2 "$tmp/c" > "$tmp/v.out" || { cat "$tmp/v.out"; fail "verify of a real contest failed"; }
grep -qx "6 games played again (all 6 played): 6 the same, 0 differ" "$tmp/v.out" || { cat "$tmp/v.out"; fail "verify summary"; }
# --sample: the same games every time.
"$bin" contest verify --sample 2 "$tmp/c" > "$tmp/s1.out" || fail "verify --sample 2"
grep -qx "2 games played again (a sample of 2 of the 6 played, drawn from the master seed): 2 the same, 0 differ" \
  "$tmp/s1.out" || { cat "$tmp/s1.out"; fail "verify --sample summary"; }

# A log altered by one byte: which game, which line.
cp -r "$tmp/c" "$tmp/bad"
log=$(ls "$tmp"/bad/logs/*.log.gz | sed -n 4p)
zcat "$log" > "$tmp/plain"
# the last digit of the first vote's target: 1 becomes 2, anything else 1
line=$(python3 - "$tmp/plain" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
lines = b.split(b"\n")
n = next(i for i, l in enumerate(lines) if b",vote," in l)
at = sum(len(l) + 1 for l in lines[:n]) + len(lines[n]) - 1
b[at] = ord("2") if b[at] == ord("1") else ord("1")
open(sys.argv[1], "wb").write(b)
print(n + 1)
PY
)
[ "$(zcat "$log" | cmp -l - "$tmp/plain" | wc -l)" -eq 1 ] || fail "the test did not alter exactly one byte"
gzip -c "$tmp/plain" > "$log"
game=$(basename "$log" .log.gz | sed 's/^0*//'); game=${game:-0}
st=0; "$bin" contest verify "$tmp/bad" > "$tmp/bad.out" || st=$?
[ $st -eq 1 ] || { cat "$tmp/bad.out"; fail "verify of an altered log: status $st"; }
grep -q "^game $game (logs/$(basename "$log")): line $line differs: now \"" "$tmp/bad.out" ||
  { cat "$tmp/bad.out"; fail "the altered game and line are not named"; }
grep -qx "6 games played again (all 6 played): 5 the same, 1 differ" "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "bad summary"; }

# An entry altered since the contest: named, its games left out, the others played.
echo "-- one more line" >> "$tmp/e/garbage/main.lua"
st=0; "$bin" contest verify "$tmp/c" > "$tmp/ent.out" || st=$?
[ $st -eq 1 ] || { cat "$tmp/ent.out"; fail "verify with an altered entry: status $st"; }
grep -q "^entry garbage ($tmp/e/garbage) changed since the contest: its SHA-256 is $(folder_sha "$tmp/e/garbage")" \
  "$tmp/ent.out" || { cat "$tmp/ent.out"; fail "the altered entry is not named"; }
without=$(awk -F'\t' '{ split($6, e, ","); g = 0; for (i in e) if (e[i] == 1) g = 1; if (!g) n++ } END { print n + 0 }' \
  "$tmp/c/games.tsv")
[ "$without" -gt 0 ] || fail "every game holds garbage: the test needs games without it"
grep -q "^$without games\? played again (all $without played by unchanged entries; $((6 - without)) left out" "$tmp/ent.out" ||
  { cat "$tmp/ent.out"; fail "the games without the altered entry were not played again"; }

# A regulation contest: sets of games whose agents carry over.
"$bin" contest --quiet --format regulation --players 5 --sets 1 --set-games 3 --seed 5 --jobs 2 --budget 1000 --out "$tmp/r" \
  agents/sample.lua agents/random.lua tests/contest/entries/counter tests/contest/entries/crash agents/tutorial.lua 2> /dev/null
"$bin" contest verify --sample 1 "$tmp/r" > "$tmp/r.out" || { cat "$tmp/r.out"; fail "verify of a regulation contest"; }
grep -q "^3 games played again (a sample of 1 of the 3 played, drawn from the master seed, with the rest of their sets): 3 the same" \
  "$tmp/r.out" || { cat "$tmp/r.out"; fail "regulation verify summary"; }

# Bad usage.
st=0; "$bin" contest verify 2> "$tmp/u.err" || st=$?
[ $st -eq 2 ] && grep -q "verify needs the contest's folder" "$tmp/u.err" || fail "verify without a folder"
st=0; "$bin" contest verify "$tmp/e" 2> "$tmp/u.err" || st=$?
[ $st -eq 2 ] && grep -q "contest.cfg" "$tmp/u.err" || fail "verify of a folder without a contest"
st=0; "$bin" contest verify --sample 0 "$tmp/c" 2> /dev/null || st=$?
[ $st -eq 2 ] || fail "--sample 0 accepted"
"$bin" contest verify --help | grep -q "usage: aiwolf contest verify" || fail "verify --help"
[ -z "$(ls "${TMPDIR:-/tmp}" | grep "^aiwolf-verify-" || true)" ] || echo "note: aiwolf-verify folders in ${TMPDIR:-/tmp} (maybe another run's)"
echo "contest verify: ok"
