#!/bin/sh
# aiwolf replay on the command line: output format, exit codes, options, the
# record, and files that are not logs. $1 is the aiwolf binary; runs from the
# project root.
set -u
BIN=$1
FIX=tests/fixtures/official
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../cli_expect.sh"

"$BIN" replay --help >"$T/out" 2>&1; expect_rc "--help exits 0" 0 $?
for opt in --preset --set --record --quiet --verbose; do
    expect_grep "--help explains $opt" "$opt" "$T/out"
done
"$BIN" --help >"$T/out" 2>&1; expect_grep "aiwolf --help lists replay" "^  replay " "$T/out"

"$BIN" replay $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "a reproduced log exits 0" 0 $?
expect_grep "reproduced line" "^$FIX/tcp/5p_game6/game.log: reproduced (89 lines)$" "$T/out"

"$BIN" replay --quiet $FIX/tcp/*/game.log $FIX/direct/5p/*.log $FIX/direct/15p/*.log $FIX/chaos/*.log >"$T/out" 2>&1
expect_rc "all 609 tcp/direct/chaos logs reproduced" 0 $?
if [ -s "$T/out" ]; then bad "--quiet prints nothing for reproduced logs"; cat "$T/out"; else ok "--quiet is quiet"; fi

# A talk moved to another agent: agent 1's talk of turn 0 given to agent 2.
sed 's/^1,talk,3,0,1,VOTE Agent\[05\]$/1,talk,3,0,2,VOTE Agent[05]/' $FIX/tcp/5p_game6/game.log >"$T/moved.log"
"$BIN" replay $FIX/tcp/5p_game1/game.log "$T/moved.log" >"$T/out" 2>&1; expect_rc "a differing log exits 1" 1 $?
expect_grep "differs names file, line and both lines" \
    "^$T/moved.log:16: differs: ours \"1,talk,4,0,1,Skip\" log \"1,talk,4,0,2,VOTE Agent\[01\]\"$" "$T/out"
expect_grep "the unanswerable request is explained" "^    line 16: day 1: our engine asks agent 1 to talk next" "$T/out"
expect_grep "the other file is still reported" "5p_game1/game.log: reproduced" "$T/out"

# Line ends and a byte order mark do not make a log differ; a line after the
# result is named as such.
sed 's/$/\r/' $FIX/tcp/5p_game6/game.log >"$T/crlf.log"
"$BIN" replay "$T/crlf.log" >"$T/out" 2>&1; expect_rc "a CRLF log reproduces" 0 $?
printf '\357\273\277' | cat - $FIX/tcp/5p_game6/game.log >"$T/bom.log"
"$BIN" replay "$T/bom.log" >"$T/out" 2>&1; expect_rc "a log with a byte order mark reproduces" 0 $?
"$BIN" check "$T/bom.log" >"$T/out" 2>&1; expect_rc "check takes the byte order mark too" 0 $?
cp $FIX/tcp/5p_game6/game.log "$T/extra.log"; echo "3,talk,0,0,1,Over" >>"$T/extra.log"
"$BIN" replay "$T/extra.log" >"$T/out" 2>&1; expect_rc "a line after the result exits 1" 1 $?
expect_grep "a line after the result is named" ":90: cannot replay: a line after the result line" "$T/out"

# A vote changed so that the vote ties: the engine asks for a revote the log does not have.
sed 's/^1,vote,1,4$/1,vote,1,3/' $FIX/tcp/5p_game6/game.log >"$T/vote.log"
"$BIN" replay "$T/vote.log" >"$T/out" 2>&1; expect_rc "a changed vote exits 1" 1 $?
expect_grep "the revote shows" "^$T/vote.log:42: differs: ours \"1,vote,1,[0-9]*\" log \"1,execute,1,SEER\"$" "$T/out"

# A vote for oneself: our engine refuses what the log shows as accepted.
sed 's/^1,vote,2,3$/1,vote,2,2/' $FIX/tcp/5p_game6/game.log >"$T/self.log"
"$BIN" replay "$T/self.log" >"$T/out" 2>&1; expect_rc "a vote for oneself exits 1" 1 $?
expect_grep "the refused vote is named" "^    line 38: day 1: our engine refuses agent 2's vote target 2" "$T/out"

# The log ends early: a line ours has and theirs has not.
head -n 88 $FIX/tcp/5p_game6/game.log >"$T/short.log"
tail -n 1 $FIX/tcp/5p_game6/game.log >>"$T/short.log"
tail -n 1 $FIX/tcp/5p_game6/game.log >>"$T/short.log"
"$BIN" replay "$T/short.log" >"$T/out" 2>&1; expect_rc "an extra line exits 1" 1 $?
expect_grep "a second result line" ":90: cannot replay: a line after the result line" "$T/out"

"$BIN" replay $FIX/edge/5p_talk_timeout/game.log >"$T/out" 2>&1; expect_rc "an incomplete log exits 1" 1 $?
expect_grep "incomplete log is named" ":7: cannot replay: incomplete log" "$T/out"
"$BIN" replay $FIX/edge/5p_role_reply_empty_line/game.log >"$T/out" 2>&1; expect_rc "an empty log exits 1" 1 $?
expect_grep "empty log is named" ":1: cannot replay: empty log" "$T/out"
head -c 1000 $FIX/chaos/c000.log >"$T/cut.log"
"$BIN" replay "$T/cut.log" >"$T/out" 2>&1; expect_rc "a cut log exits 1" 1 $?
expect_grep "cut-off log is named" "cannot replay: the last line has no line ending" "$T/out"
head -c 3000 /dev/urandom >"$T/noise.log"
"$BIN" replay "$T/noise.log" >"$T/out" 2>&1; expect_rc "random bytes exit 1" 1 $?
expect_grep "random bytes are not a log" "cannot replay" "$T/out"

"$BIN" replay --record $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "--record exits 0" 0 $?
expect_grep "record header" "^Game: 5 players, preset aiwolf" "$T/out"
expect_grep "record names" "Agent\[04\] SampleRoleAssignPlayer   WEREWOLF" "$T/out"
expect_grep "record talk" "^  talk    Agent\[03\] (VILLAGER): VOTE Agent\[04\]$" "$T/out"
expect_grep "record execution" "^  >> Agent\[01\] (SEER) is executed$" "$T/out"
expect_grep "record result" "^Result: VILLAGER wins" "$T/out"
expect_grep "verdict after the record" "5p_game6/game.log: reproduced (89 lines)$" "$T/out"

"$BIN" replay -v $FIX/chaos/c394.log >"$T/out" 2>&1; expect_rc "--verbose exits 0" 0 $?
expect_grep "ambiguous night noted" "note: 1 night with attack votes that fit more than one cut into rounds (first at line 436)" "$T/out"
"$BIN" replay $FIX/chaos/c394.log >"$T/out" 2>&1
expect_no_grep "no note without --verbose" "note:" "$T/out"

# Other rules than the game's: the talk limit shows.
"$BIN" replay --set max_talk=1 $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "--set applies" 1 $?
expect_grep "--set talk limit" "differs: ours \"1,talk,5,1,5,Over\"" "$T/out"
# Seed 2015 rules have no whisper on night 0.
"$BIN" replay --preset seed2015 $FIX/tcp/15p_game1/game.log >"$T/out" 2>&1; expect_rc "--preset applies" 1 $?
expect_grep "--preset seed2015" ":16: differs: ours \"0,divine,1,15,HUMAN\" log \"0,whisper,0,0,11," "$T/out"

# Games of Lua agents logged by 'aiwolf play' replay under their own rules.
for spec in "aiwolf 15 42" "seed2015 9 7" "regulation 5 3"; do
    set -- $spec
    "$BIN" play --preset "$1" --players "$2" --seed "$3" --quiet --log "$T/play.log" agents/random.lua >/dev/null 2>&1
    "$BIN" replay --preset "$1" "$T/play.log" >"$T/out" 2>&1; expect_rc "a $1 game of 'aiwolf play' replays" 0 $?
    expect_grep "a $1 game of 'aiwolf play' is reproduced" ": reproduced (" "$T/out"
done
# ... and not under other rules: seed 2015 has no whisper before the first divination.
"$BIN" play --preset seed2015 --players 9 --seed 7 --quiet --log "$T/play.log" agents/random.lua >/dev/null 2>&1
"$BIN" replay --preset aiwolf "$T/play.log" >"$T/out" 2>&1; expect_rc "a seed2015 game under aiwolf rules differs" 1 $?

"$BIN" replay - <$FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "standard input" 0 $?
expect_grep "stdin is named" "^<stdin>: reproduced (89 lines)$" "$T/out"

"$BIN" replay >"$T/out" 2>&1; expect_rc "no files: usage error" 2 $?
"$BIN" replay --frobnicate x >"$T/out" 2>&1; expect_rc "unknown option: usage error" 2 $?
"$BIN" replay --preset nonesuch $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "unknown preset: usage error" 2 $?
"$BIN" replay --set nonesuch=1 $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "unknown setting: usage error" 2 $?
"$BIN" replay --preset >"$T/out" 2>&1; expect_rc "--preset without value" 2 $?
"$BIN" replay "$T/does-not-exist.log" $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1
expect_rc "unreadable file exits 2" 2 $?
expect_grep "unreadable file is named" "cannot read" "$T/out"
expect_grep "the readable file is still replayed" "5p_game6/game.log: reproduced" "$T/out"

# gzip logs, known by their first bytes whatever their name, on stdin too, and
# several members joined (cat a.gz b.gz); a truncated one exits 2, named.
L=$FIX/tcp/5p_game6/game.log
"$BIN" replay --help >"$T/out" 2>&1; expect_grep "--help says .gz logs are read" "compressed with gzip" "$T/out"
gzip -c $L >"$T/g.gz"
"$BIN" replay "$T/g.gz" >"$T/out" 2>&1; expect_rc "a .gz log reproduces" 0 $?
expect_grep "a .gz log is replayed" "^$T/g.gz: reproduced (89 lines)$" "$T/out"
cp "$T/g.gz" "$T/g-plain-name.log"
"$BIN" replay "$T/g-plain-name.log" >"$T/out" 2>&1; expect_rc "gzip is known by its bytes, not its name" 0 $?
gzip -c $L | "$BIN" replay - >"$T/out" 2>&1; expect_rc "a .gz log on stdin" 0 $?
expect_grep "a .gz stdin is named" "^<stdin>: reproduced (89 lines)$" "$T/out"
{ head -n 40 $L | gzip -c; tail -n +41 $L | gzip -c; } >"$T/two.gz"
"$BIN" replay "$T/two.gz" >"$T/out" 2>&1; expect_rc "a two-member .gz reproduces" 0 $?
"$BIN" replay --record "$T/g.gz" >"$T/out" 2>&1; expect_rc "--record on a .gz" 0 $?
head -c 400 "$T/g.gz" >"$T/cut.gz"
"$BIN" replay "$T/cut.gz" $L >"$T/out" 2>&1; expect_rc "a truncated .gz exits 2" 2 $?
expect_grep "a truncated .gz is named" "^aiwolf replay: $T/cut.gz: truncated gzip data$" "$T/out"
expect_grep "the next file is still replayed" "5p_game6/game.log: reproduced" "$T/out"
head -c 400 "$T/g.gz" | "$BIN" replay - >"$T/out" 2>&1; expect_rc "a truncated .gz on stdin exits 2" 2 $?
expect_grep "a truncated stdin is named" "^aiwolf replay: <stdin>: truncated gzip data$" "$T/out"
printf '\037\213' >"$T/magic-only.log"
"$BIN" replay "$T/magic-only.log" >"$T/out" 2>&1; expect_rc "the gzip magic alone exits 2" 2 $?
expect_grep "the gzip magic alone is named" "^aiwolf replay: $T/magic-only.log: truncated gzip data$" "$T/out"

if [ $fails -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "all passed"
