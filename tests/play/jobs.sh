#!/bin/sh
# play --games on several processes (--jobs): the same summary (every line
# but the speed), the same game logs and the same head-to-head result as one
# process; Ctrl-C still ends with a summary; what one process must write in
# order refuses --jobs.
set -eu
bin=$1
. "$(dirname "$0")/waits.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for j in 1 3; do
  "$bin" play --games 24 --players 7 --seed 11 --jobs $j --log "$tmp/logs$j" \
    --summary "$tmp/s$j.json" agents/sample.lua agents/random.lua tests/contest/entries/crash/main.lua > "$tmp/out$j" 2> "$tmp/err$j"
  "$bin" play --vs --games 10 --seed 3 --quiet --jobs $j agents/sample.lua agents/random.lua > "$tmp/vs$j"
done
tail -n +2 "$tmp/out1" > "$tmp/a"; tail -n +2 "$tmp/out3" > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "--jobs 3 gives another summary:"; diff "$tmp/a" "$tmp/b"; exit 1; }
diff -r "$tmp/logs1" "$tmp/logs3" > /dev/null || { echo "--jobs 3 gives other logs"; exit 1; }
[ "$(ls "$tmp"/logs3/*.log | wc -l)" -eq 24 ] || { echo "not 24 logs"; exit 1; }
[ -f "$tmp/logs3/aiwolf.rules" ] || { echo "no aiwolf.rules beside the logs"; exit 1; }
tail -n +2 "$tmp/vs1" > "$tmp/a"; tail -n +2 "$tmp/vs3" > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "--vs --jobs 3 differs:"; diff "$tmp/a" "$tmp/b"; exit 1; }
# the first fault is said once, by the parent
[ "$(grep -c 'first fault of tests/contest/entries/crash/main.lua' "$tmp/err3")" -eq 1 ] || { echo "first fault lines:"; cat "$tmp/err3"; exit 1; }
# Ctrl-C
# once a game is over (its log tells)
"$bin" play --games 0 --players 5 --seed 1 --quiet --jobs 2 --log "$tmp/li" agents/random.lua > "$tmp/int" 2>&1 &
pid=$!
wait_game "$tmp/li"
kill -INT $pid
wait $pid || true
grep -q "^[0-9]* games* of 5 players" "$tmp/int" || { echo "no summary after Ctrl-C with --jobs 2:"; cat "$tmp/int"; exit 1; }
st=0; "$bin" play --games 4 --jobs 2 --events "$tmp/ev" agents/random.lua > /dev/null 2> "$tmp/err" || st=$?
[ $st -eq 2 ] && grep -q "events is written by one process" "$tmp/err" || { echo "--events --jobs 2: $st $(cat "$tmp/err")"; exit 1; }
echo ok
