#!/bin/sh
# play --watch says each change of an agent file once, however many seats
# play it: a new version, a version that does not load, and the file fixed
# back to the version that plays.
set -u
bin=$1
. "$(dirname "$0")/waits.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# Files are replaced whole (written aside, outside the agent's folder whose
# modules count too, then renamed), as editors save. Each change waits for
# the run to have said the one before and played two more games (its logs
# tell), never for a time.
mkdir "$tmp/agent"
agent() { # comment
  printf 'return { vote = function(self) return nil end } -- %s\n' "$1" > "$tmp/new" && mv "$tmp/new" "$tmp/agent/me.lua"
}
agent a
"$bin" play --games 0 --players 5 --seed 1 --quiet --watch --log "$tmp/l" "$tmp/agent/me.lua" > "$tmp/out" 2> "$tmp/err" &
pid=$!
# said: until the line is in the run's errors, then two more games
said() { wait_line "$tmp/err" "$1"; n=$(logs "$tmp/l"); wait_logs "$tmp/l" $((n + 2)); }
wait_logs "$tmp/l" 2
agent bbbbbbbb; said 'reloaded'            # a new version
printf 'return {\n' > "$tmp/new"; mv "$tmp/new" "$tmp/agent/me.lua"; said 'does not load'
agent bbbbbbbb; said 'loads again'         # back to the version that plays
# a module of the folder that does not load: named with the folder
# (a new module is a new version too: each change is waited for)
reloads() { [ "$(grep -c reloaded "$tmp/err")" -ge "$1" ]; }
printf 'return {}\n' > "$tmp/new"; mv "$tmp/new" "$tmp/agent/helper.lua"
wait_until "a second reload" reloads 2; n=$(logs "$tmp/l"); wait_logs "$tmp/l" $((n + 2))
printf 'local H = require "helper"\nreturn { vote = function(self) return nil end }\n' > "$tmp/new"
mv "$tmp/new" "$tmp/agent/me.lua"
wait_until "a third reload" reloads 3; n=$(logs "$tmp/l"); wait_logs "$tmp/l" $((n + 2))
printf 'return {\n' > "$tmp/new"; mv "$tmp/new" "$tmp/agent/helper.lua"
said "plays on: $tmp/agent/helper.lua:2: "
kill -INT $pid
wait $pid
n() { grep -c -- "$1" "$tmp/err"; }
[ "$(n 'reloaded')" -eq 3 ] || { echo "FAIL: $(n 'reloaded') 'reloaded' lines for 5 seats, want 3"; fails=$((fails + 1)); }
[ "$(n 'does not load')" -eq 2 ] || { echo "FAIL: $(n 'does not load') 'does not load' lines, want 2"; fails=$((fails + 1)); }
[ "$(n 'loads again')" -eq 1 ] || { echo "FAIL: $(n 'loads again') 'loads again' lines, want 1"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "reload messages: ok" || cat "$tmp/err"
exit $fails
