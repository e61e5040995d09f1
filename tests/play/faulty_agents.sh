#!/bin/sh
# Agents that fail — an error in a method, a wrong reply type, an endless
# loop — never stop the game: the faults are logged with their kind, the
# rules' substitutes apply, and the log stays legal.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" play --quiet --players 5 --seed 5 --budget 50 --log "$tmp/game.log" --events "$tmp/ev.jsonl" \
  tests/play/faulty/raises.lua tests/play/faulty/wrongtype.lua tests/play/faulty/loops.lua agents/random.lua agents/random.lua
"$bin" check --quiet "$tmp/game.log"
grep -q '"fault":"error","message":"[^"]*talk is broken' "$tmp/ev.jsonl" || { echo "no error fault"; exit 1; }
grep -q '"fault":"reply"' "$tmp/ev.jsonl" || { echo "no reply fault"; exit 1; }
grep -q '"fault":"reply","message":"divine() must return a whole agent number, not 2.5"' "$tmp/ev.jsonl" ||
  { echo "2.5 was taken for an agent"; exit 1; }
# getName that fails or answers a number: the fault is logged, the agent plays on under its default name
printf 'return { getName = function() return 123 end }\n' > "$tmp/name_number.lua"
printf 'return { getName = function() error("no name today") end }\n' > "$tmp/name_error.lua"
"$bin" play --quiet --players 5 --seed 5 --log "$tmp/names.log" --events "$tmp/names.jsonl" \
  "$tmp/name_number.lua" "$tmp/name_error.lua" agents/random.lua agents/random.lua agents/random.lua
"$bin" check --quiet "$tmp/names.log"
grep -q '"call":"NAME","us":[0-9]*,"fault":"reply","message":"getName() must return a string, not a number"' "$tmp/names.jsonl" ||
  { echo "getName returning 123 was not reported"; exit 1; }
grep -q '"call":"NAME","us":[0-9]*,"fault":"error","message":"[^"]*no name today' "$tmp/names.jsonl" ||
  { echo "an error in getName was not reported"; exit 1; }
grep -q '"call":"VOTE"[^}]*"fault":"timeout"' "$tmp/ev.jsonl" || { echo "no timeout fault"; exit 1; }
grep -q '"event":"substitute"' "$tmp/ev.jsonl" || { echo "no substitute"; exit 1; }
grep -q ',result,' "$tmp/game.log" || { echo "the game did not finish"; exit 1; }
echo "faulty agents: ok"
