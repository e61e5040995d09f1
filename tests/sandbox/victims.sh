#!/bin/sh
# One agent's fault never changes another agent's game: each attack agent in
# tests/sandbox/attacks/ that is meant for it (listed below) plays in seat 1
# of several games in one process (--fixed-seats) beside innocent agents
# (tests/sandbox/victims/calendar.lua, which reads the clock and the calendar
# in every call); the innocent agents must have no fault at all, in the
# attacked game and in the games after it, and every log must be legal.
# $1 is the aiwolf binary; runs from the project root.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
victim=tests/sandbox/victims/calendar.lua
for name in unpack_c_index stack_overflow_pcall load_goto_bomb; do
  f=tests/sandbox/attacks/$name.lua
  [ -f "$f" ] || { echo "FAIL: $f is missing"; fails=$((fails + 1)); continue; }
  if ! timeout 300 "$bin" play --seed 7 --games 3 --players 5 --fixed-seats --budget 100 --quiet --no-agent-output \
      --log "$tmp/$name" --events "$tmp/$name.jsonl" "$f" "$victim" "$victim" "$victim" "$victim" \
      > "$tmp/$name.out" 2>&1; then
    echo "FAIL: $name: the games did not finish"; tail -3 "$tmp/$name.out"; fails=$((fails + 1)); continue
  fi
  "$bin" check --quiet "$tmp/$name"/*.log || { echo "FAIL: $name: an illegal log"; fails=$((fails + 1)); }
  # seat 1 is the attacker; every fault of seats 2-5 is a failure
  if grep '"fault"' "$tmp/$name.jsonl" | grep -qv '"agent":1,'; then
    echo "FAIL: $name: an innocent agent had a fault:"; grep '"fault"' "$tmp/$name.jsonl" | grep -v '"agent":1,' | head -3
    fails=$((fails + 1))
  fi
  grep -q '"agent":1,[^}]*"fault":"timeout"' "$tmp/$name.jsonl" ||
    { echo "FAIL: $name: the attacker was never stopped by its budget"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "victims: no innocent agent had a fault"
exit $fails
