#!/bin/sh
# Logs that check: every log that contest, play and serve write passes
# `aiwolf check` and `aiwolf replay` with no options, because the rules it was
# played under are written beside it (logs/aiwolf.rules, LOG.rules; the CSV
# is unchanged); a log checked under other rules says which preset it would
# pass under; a contest from before the rules files is read through its
# contest.cfg; a broken rules file is a clear error.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A default contest (seed2015 rules, 15 players), three entries, gzip logs.
"$bin" contest --quiet --games-per-entry 10 --seed 11 --jobs 2 --out "$tmp/c" \
  tests/contest/entries/counter tests/contest/entries/garbage tests/contest/entries/crash 2> "$tmp/c.err" ||
  { cat "$tmp/c.err"; fail "the contest failed"; }
n=$(ls "$tmp"/c/logs/*.log.gz | wc -l)
[ "$n" -ge 2 ] || fail "expected several logs, got $n"
[ -s "$tmp/c/logs/aiwolf.rules" ] || fail "no logs/aiwolf.rules"
grep -qx "preset=seed2015" "$tmp/c/logs/aiwolf.rules" || fail "the rules file does not say seed2015"
"$bin" check "$tmp"/c/logs/*.log.gz > "$tmp/check.out" || { cat "$tmp/check.out"; fail "contest logs fail check"; }
[ "$(grep -c ': legal (15 players' "$tmp/check.out")" -eq "$n" ] || { cat "$tmp/check.out"; fail "not every log legal"; }
"$bin" replay "$tmp"/c/logs/*.log.gz > "$tmp/replay.out" || { cat "$tmp/replay.out"; fail "contest logs fail replay"; }
[ "$(grep -c ': reproduced' "$tmp/replay.out")" -eq "$n" ] || fail "not every log reproduced"
# The official CSV is untouched: nothing but the ten line types.
zcat "$tmp"/c/logs/*.log.gz | cut -d, -f2 | sort -u > "$tmp/kinds"
grep -qvxE 'status|talk|whisper|vote|execute|divine|guard|attackVote|attack|result' "$tmp/kinds" &&
  fail "a log holds lines of another kind"
# From inside the logs folder, by a relative name, too.
(cd "$tmp/c/logs" && "$bin" check --quiet ./*.log.gz && "$bin" replay --quiet ./*.log.gz) ||
  fail "relative paths inside the logs folder"

# Under other rules: illegal, and the hint names the preset it passes under.
first=$(ls "$tmp"/c/logs/*.log.gz | head -1)
st=0; "$bin" check --preset aiwolf "$first" > "$tmp/hint.out" || st=$?
[ $st -eq 1 ] || fail "check --preset aiwolf on a seed2015 log: status $st"
grep -q "illegal: expected the whisper of day 0" "$tmp/hint.out" || { cat "$tmp/hint.out"; fail "no reason"; }
grep -q "hint: legal under --preset seed2015 (checked under --preset aiwolf)" "$tmp/hint.out" ||
  { cat "$tmp/hint.out"; fail "no preset hint from check"; }
st=0; "$bin" replay --preset regulation "$first" > "$tmp/rhint.out" || st=$?
[ $st -eq 1 ] || fail "replay --preset regulation on a seed2015 log: status $st"
grep -q "hint: reproduced under --preset seed2015 (replayed under --preset regulation)" "$tmp/rhint.out" ||
  { cat "$tmp/rhint.out"; fail "no preset hint from replay"; }
# A copy with no rules beside it: the default preset, and the hint says so.
zcat "$first" > "$tmp/alone.log"
st=0; "$bin" check "$tmp/alone.log" > "$tmp/alone.out" || st=$?
[ $st -eq 1 ] || fail "a seed2015 log without rules passed as aiwolf"
grep -q "hint: legal under --preset seed2015 (checked under the default preset aiwolf: no rules file beside the log)" \
  "$tmp/alone.out" || { cat "$tmp/alone.out"; fail "no hint for a log without rules"; }
# --set applies on top of the log's own rules.
"$bin" check --quiet --set max_days=100 "$first" || fail "--set on top of the log's rules"
# A log legal under no preset gets no hint.
printf '0,status,1,WEREWOLF,ALIVE,a\n0,status,2,SEER,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n' > "$tmp/cut.log"
st=0; "$bin" check "$tmp/cut.log" > "$tmp/cut.out" || st=$?
[ $st -eq 1 ] || fail "an incomplete log passed"
grep -q hint "$tmp/cut.out" && fail "a hint for a log that no preset passes"

# A contest from before the rules files: its contest.cfg speaks for the logs.
rm "$tmp/c/logs/aiwolf.rules"
"$bin" check --quiet "$tmp"/c/logs/*.log.gz || fail "logs of a contest without aiwolf.rules (contest.cfg)"
"$bin" replay --quiet "$tmp"/c/logs/*.log.gz || fail "replay without aiwolf.rules (contest.cfg)"

# A broken rules file: status 2, the file and the line named.
printf 'preset=seed2015\nmax_talk=lots\n' > "$tmp/alone.log.rules"
st=0; "$bin" check "$tmp/alone.log" 2> "$tmp/bad.err" || st=$?
[ $st -eq 2 ] || fail "a broken rules file: status $st"
grep -q "alone.log.rules: line 2: setting max_talk" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "no line in the message"; }
printf 'preset=seed2015\n' > "$tmp/alone.log.rules"
"$bin" check --quiet "$tmp/alone.log" || fail "LOG.rules with a preset line only"

# play --log FILE: FILE.rules beside it.
"$bin" play --quiet --preset seed2015 --seed 3 --log "$tmp/p.log" agents/sample.lua agents/random.lua > /dev/null
[ -s "$tmp/p.log.rules" ] || fail "play --log wrote no p.log.rules"
"$bin" check --quiet "$tmp/p.log" && "$bin" replay --quiet "$tmp/p.log" || fail "play --log's log"
# play --games --log DIR: the folder's aiwolf.rules; a later run under other
# rules into the same folder gives its own logs LOG.rules, and a run under the
# folder's rules again takes back a log it overwrites.
"$bin" play --quiet --preset seed2015 --seed 20 --games 3 --log "$tmp/pd" agents/sample.lua agents/random.lua > /dev/null
"$bin" play --quiet --preset regulation --seed 22 --games 3 --log "$tmp/pd" agents/sample.lua agents/random.lua > /dev/null
grep -qx "preset=seed2015" "$tmp/pd/aiwolf.rules" || fail "the folder's rules changed"
[ -f "$tmp/pd/20.log.rules" ] && fail "a log of the folder's rules has its own rules file"
grep -qx "preset=regulation" "$tmp/pd/24.log.rules" || fail "no 24.log.rules for the regulation run"
"$bin" play --quiet --preset seed2015 --seed 24 --games 1 --log "$tmp/pd/24.log" agents/sample.lua > /dev/null
"$bin" play --quiet --preset seed2015 --seed 24 --games 2 --log "$tmp/pd" agents/sample.lua agents/random.lua > /dev/null
[ -f "$tmp/pd/24.log.rules" ] && fail "a stale 24.log.rules was left"
"$bin" check --quiet "$tmp"/pd/*.log && "$bin" replay --quiet "$tmp"/pd/*.log || fail "play --games --log logs"

# serve --log-dir.
"$bin" serve -p 0 -n 5 --preset seed2015 --games 2 --seed 5 --quiet --log-dir "$tmp/s" \
  --agent 1=agents/sample.lua --agent 2=agents/sample.lua --agent 3=agents/random.lua \
  --agent 4=agents/random.lua --agent 5=agents/sample.lua > /dev/null
[ "$(ls "$tmp"/s/*.log | wc -l)" -eq 2 ] || fail "serve wrote no logs"
"$bin" check --quiet "$tmp"/s/*.log && "$bin" replay --quiet "$tmp"/s/*.log || fail "serve --log-dir logs"
echo "log rules: ok"
