#!/bin/sh
# play --games 0 runs until Ctrl-C, and Ctrl-C during --games ends with the
# summary of the games played (exit status 0); agent output says its game.
# Ctrl-C comes once a game is over (its logs tell), not after a time.
set -u
bin=$1
. "$(dirname "$0")/waits.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
"$bin" play --games 0 --players 5 --seed 1 --log "$tmp/l1" agents/random.lua > "$tmp/out" 2> "$tmp/err" &
pid=$!
wait_game "$tmp/l1"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc after Ctrl-C"; fails=$((fails + 1)); }
grep -q "games* of 5 players" "$tmp/out" || { echo "FAIL: no summary after Ctrl-C"; cat "$tmp/out"; fails=$((fails + 1)); }
grep -q "interrupted after [0-9]* game" "$tmp/err" || { echo "FAIL: no word of the interruption"; cat "$tmp/err"; fails=$((fails + 1)); }
# a bounded run interrupted early also prints what it played
"$bin" play --games 1000000 --players 5 --seed 1 --quiet --log "$tmp/l2" agents/random.lua > "$tmp/out2" 2> /dev/null &
pid=$!
wait_game "$tmp/l2"
kill -INT $pid
wait $pid
grep -q "^[0-9]* games* of 5 players" "$tmp/out2" || { echo "FAIL: no summary of a bounded run"; fails=$((fails + 1)); }
# with several games, what an agent prints says which game it belongs to
printf 'return { initialize = function() print("hello") end }\n' > "$tmp/hello.lua"
"$bin" play --games 2 --players 5 --seed 1 --quiet --agent-output "$tmp/hello.lua" > /dev/null 2> "$tmp/hello.err"
grep -q '^\[game 2 Agent\[05\] hello\] hello$' "$tmp/hello.err" ||
  { echo "FAIL: agent output without its game"; head -3 "$tmp/hello.err"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "interrupt: ok"
exit $fails
