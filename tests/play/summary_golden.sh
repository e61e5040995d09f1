#!/bin/sh
# The summary of `play --games` in each of its formats (text, --summary
# json and csv, and a head-to-head run) is the one in tests/play/golden/,
# byte for byte but for the time and the speed: the report stack's formats
# must not drift when its code moves. The agents are contest test entries
# whose games the rules' substitutes decide, with a budget no load reaches,
# so the games are the same on any machine. After a deliberate change of a
# format, write the files anew with AW_GOLDEN_WRITE=1 and say why in the
# commit.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=tests/play/golden
A=tests/contest/entries/crash/main.lua
B=tests/contest/entries/counter/main.lua
P="--players 5 --budget 10000"
norm() { sed -E 's/ in [0-9.]+ s: [0-9.e+-]+ games\/s/ in X s: Y games\/s/; s/"seconds": [0-9.]+/"seconds": X/'; }
"$bin" play --games 8 $P --seed 3 --jobs 2 --summary "$tmp/s.json" "$A" "$B" 2>/dev/null | norm > "$tmp/text"
norm < "$tmp/s.json" > "$tmp/json"
"$bin" play --games 8 $P --seed 3 --jobs 1 --quiet --summary "csv:$tmp/csv" "$A" "$B" > /dev/null 2>&1
"$bin" play --vs --games 6 $P --seed 4 --jobs 2 --summary "json:$tmp/vs.j" "$A" "$B" 2>/dev/null | norm > "$tmp/vs"
norm < "$tmp/vs.j" > "$tmp/vs.json"
if [ "${AW_GOLDEN_WRITE:-}" = 1 ]; then
  mkdir -p "$g"
  for f in text json csv vs vs.json; do cp "$tmp/$f" "$g/$f"; done
  echo "wrote $g"
  exit 0
fi
st=0
for f in text json csv vs vs.json; do
  cmp -s "$g/$f" "$tmp/$f" || { echo "the $f summary differs from $g/$f:"; diff "$g/$f" "$tmp/$f" || true; st=1; }
done
[ $st -eq 0 ] && echo ok
exit $st
