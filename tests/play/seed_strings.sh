#!/bin/sh
# Seeds above 2^53 survive a JSON parser that reads numbers as doubles (as
# browsers, node and jq do): the events file's "seed", the summary's
# "first_seed" and the viewer's page data carry seeds as strings; python's
# json with parse_int=float reads them back, and a game replayed from the seed
# it got writes the same log as the original.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
seed=6126306103790346594 # 6126306103790346000 when read as a double

mkdir "$tmp/logs"
"$bin" play --games 3 --seed $seed --quiet --events "$tmp/ev.jsonl" --summary "$tmp/sum.json" --log "$tmp/logs" \
  agents/sample.lua agents/random.lua > "$tmp/out" 2>&1 || { echo "FAIL: play: $(tail "$tmp/out")"; exit 1; }
# what a doubles-only parser gets: every begin's seed and the summary's first seed
python3 - "$tmp/ev.jsonl" "$tmp/sum.json" > "$tmp/seeds" << 'PY' || fail "reading the seeds back: $(cat "$tmp/seeds")"
import json, sys
def load(text):
    return json.loads(text, parse_int=float)
seeds = []
for line in open(sys.argv[1]):
    e = load(line)
    if e["event"] == "begin":
        assert isinstance(e["seed"], str), "seed is not a string: %r" % (e["seed"],)
        seeds.append(e["seed"])
s = load(open(sys.argv[2]).read())
assert isinstance(s["first_seed"], str) and s["first_seed"] == seeds[0], s["first_seed"]
print("\n".join(seeds))
PY
[ "$(cat "$tmp/seeds")" = "$(printf '%s\n%s\n%s' $seed $((seed + 1)) $((seed + 2)))" ] || fail "seeds read: $(cat "$tmp/seeds")"
# node too, when it is there (the browser's JSON.parse)
if command -v node > /dev/null; then
  node -e 'const fs=require("fs"); const l=fs.readFileSync(process.argv[1],"utf8").split("\n").filter(x=>x).map(JSON.parse);
    const b=l.filter(e=>e.event==="begin").map(e=>e.seed); if (b[0]!==process.argv[2]) { console.log("node read", b[0]); process.exit(1); }' \
    "$tmp/ev.jsonl" $seed || fail "node reads another seed"
fi
# each game replayed from the seed read back writes the same log (a game of a
# --games run is the first of `--games 2 --seed S`: docs/agents.md)
for s in $(cat "$tmp/seeds"); do
  mkdir "$tmp/again"
  "$bin" play --games 2 --seed "$s" --quiet --log "$tmp/again" agents/sample.lua agents/random.lua > /dev/null 2>&1 ||
    fail "replay of $s"
  cmp -s "$tmp/again/$s.log" "$tmp/logs/$s.log" 2> /dev/null || fail "seed $s read back plays another game"
  rm -rf "$tmp/again"
done
# the viewer's data for the events file carries the seed as a string too
grep -q "\"seed\":\"$seed\"" "$tmp/ev.jsonl" || fail "events: $(grep begin "$tmp/ev.jsonl" | head -1)"

[ $fails -eq 0 ] && echo "seed_strings: ok"
exit $((fails > 0))
