#!/bin/sh
# Runs one rule case (a folder under tests/rules/): plays the game its `args`
# describe with the scripted agent made of scripted.lua + the case's
# script.lua, then checks
#   - the log is legal under the case's preset (aiwolf check);
#   - every regular expression in `expect` matches a line of the CSV log, in
#     order (each after the previous match);
#   - no line of the log matches a regular expression in `absent`;
#   - for each line 'N<TAB>regex' in `counts`, exactly N log lines match;
#   - every regular expression in `events` matches a line of the events file;
#   - the events file has no fault unless the case has a file `faults`.
# usage: run_case.sh AIWOLF_BINARY CASE_FOLDER
set -u
bin=$1
case=$2
name=$(basename "$case")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "rule case $name: $*"; [ -f "$tmp/game.log" ] && { echo "--- log:"; cat "$tmp/game.log"; }; exit 1; }

cat "$(dirname "$0")/scripted.lua" "$case/script.lua" > "$tmp/scripted.lua"
args=$(cat "$case/args")
preset=aiwolf
set -- $args
while [ $# -gt 0 ]; do
  [ "$1" = "--preset" ] && preset=$2
  shift
done
# shellcheck disable=SC2086
"$bin" play --quiet --log "$tmp/game.log" --events "$tmp/events.jsonl" $args "$tmp/scripted.lua" \
  > "$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; fail "aiwolf play failed"; }
check_args=""
for s in $(grep -o -- '--set [^ ]*' "$case/args" | cut -d' ' -f2); do check_args="$check_args --set $s"; done
# shellcheck disable=SC2086
"$bin" check --preset "$preset" $check_args "$tmp/game.log" > "$tmp/check.txt" 2>&1 \
  || { cat "$tmp/check.txt"; fail "the log is not legal under $preset"; }

if [ -f "$case/expect" ]; then
  awk -v pats="$case/expect" '
    BEGIN { n = 0; while ((getline p < pats) > 0) if (p != "" && p !~ /^#/) pat[n++] = p; i = 0 }
    i < n && $0 ~ ("^" pat[i] "$") { i++ }
    END { if (i < n) { print "expected line not found (in order): " pat[i]; exit 1 } }
  ' "$tmp/game.log" || fail "expect"
fi
if [ -f "$case/absent" ]; then
  while IFS= read -r p; do
    [ -z "$p" ] && continue
    if grep -Eq "^$p\$" "$tmp/game.log"; then fail "a line matches the absent pattern: $p"; fi
  done < "$case/absent"
fi
if [ -f "$case/counts" ]; then
  tab=$(printf '\t')
  while IFS="$tab" read -r want p; do
    [ -z "$p" ] && continue
    got=$(grep -Ec "^$p\$" "$tmp/game.log")
    [ "$got" -eq "$want" ] || fail "$got lines match '$p', expected $want"
  done < "$case/counts"
fi
if [ -f "$case/events" ]; then
  while IFS= read -r p; do
    [ -z "$p" ] && continue
    grep -Eq "$p" "$tmp/events.jsonl" || fail "no event matches: $p"
  done < "$case/events"
fi
if [ ! -f "$case/faults" ] && grep -q '"fault"' "$tmp/events.jsonl"; then
  grep '"fault"' "$tmp/events.jsonl" | head -5
  fail "an agent call failed"
fi
echo "rule case $name: ok"
