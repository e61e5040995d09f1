#!/bin/sh
# aiwolf check on the command line: output format, exit codes, options, and
# files that are not logs. $1 is the aiwolf binary; runs from the project root.
set -u
BIN=$1
FIX=tests/fixtures/official
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../cli_expect.sh"

"$BIN" check --help >"$T/out" 2>&1; expect_rc "--help exits 0" 0 $?
for opt in --preset --set --roles --strict-roles --quiet --list-settings; do
    expect_grep "--help explains $opt" "$opt" "$T/out"
done

"$BIN" check $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "a legal log exits 0" 0 $?
expect_grep "legal line" "^$FIX/tcp/5p_game6/game.log: legal (5 players, winner VILLAGER, 3 days)$" "$T/out"

"$BIN" check --quiet $FIX/tcp/*/game.log $FIX/direct/5p/*.log $FIX/direct/15p/*.log $FIX/chaos/*.log >"$T/out" 2>&1
expect_rc "all 609 tcp/direct/chaos logs legal" 0 $?
if [ -s "$T/out" ]; then bad "--quiet prints nothing for legal logs"; cat "$T/out"; else ok "--quiet is quiet"; fi

sed 's/^1,vote,1,4$/1,vote,1,1/' $FIX/tcp/5p_game6/game.log >"$T/selfvote.log"
"$BIN" check $FIX/tcp/5p_game1/game.log "$T/selfvote.log" >"$T/out" 2>&1; expect_rc "an illegal log exits 1" 1 $?
expect_grep "illegal line names file and line" "^$T/selfvote.log:37: illegal: agent 1 votes for itself" "$T/out"
expect_grep "the offending line follows" "^    1,vote,1,1$" "$T/out"
expect_grep "the legal file is still reported" "5p_game1/game.log: legal" "$T/out"

"$BIN" check $FIX/edge/5p_talk_timeout/game.log >"$T/out" 2>&1; expect_rc "an incomplete log exits 1" 1 $?
expect_grep "incomplete log is named" ":7: illegal: incomplete log" "$T/out"

"$BIN" check $FIX/edge/5p_role_reply_empty_line/game.log >"$T/out" 2>&1; expect_rc "an empty log exits 1" 1 $?
expect_grep "empty log is named" ":1: illegal: empty log" "$T/out"

head -c 3000 /dev/urandom >"$T/junk.bin" 2>/dev/null || printf '\177ELF\001\002' >"$T/junk.bin"
"$BIN" check "$T/junk.bin" >"$T/out" 2>&1; expect_rc "binary junk exits 1" 1 $?
expect_grep "binary junk gets a message" "junk.bin:1: illegal:" "$T/out"

"$BIN" check "$T/no-such-file.log" >"$T/out" 2>&1; expect_rc "a missing file exits 2" 2 $?
expect_grep "a missing file is named" "no-such-file.log" "$T/out"
"$BIN" check "$T/no-such-file.log" "$T/selfvote.log" >"$T/out" 2>&1; expect_rc "unreadable beats illegal" 2 $?

"$BIN" check >"$T/out" 2>&1; expect_rc "no files exits 2" 2 $?
"$BIN" check --preset nonsense $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "unknown preset exits 2" 2 $?
expect_grep "unknown preset is named" "unknown preset 'nonsense'" "$T/out"
"$BIN" check --set nonsense=1 $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "unknown setting exits 2" 2 $?
"$BIN" check --bogus $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "unknown option exits 2" 2 $?
"$BIN" check --roles KING=1 $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "bad --roles exits 2" 2 $?

"$BIN" check --strict-roles $FIX/tcp/5p_game6/game.log $FIX/tcp/15p_game1/game.log >"$T/out" 2>&1
expect_rc "--strict-roles accepts the official tables" 0 $?
"$BIN" check --roles SEER=1,WEREWOLF=1,VILLAGER=3 $FIX/tcp/5p_game6/game.log >"$T/out" 2>&1
expect_rc "--roles rejects another table" 1 $?
expect_grep "--roles names the role" "POSSESSED" "$T/out"

"$BIN" check --preset regulation --set max_revote=0 --list-settings >"$T/out" 2>&1; expect_rc "--list-settings exits 0" 0 $?
expect_grep "--settings shows --set" "^max_revote=0$" "$T/out"
expect_grep "--settings shows the preset" "^talk_end_all_skip_turns=3$" "$T/out"
# A binary line is shown as escapes, never as raw bytes.
printf '0,st\377\001x\n' > "$T/binary.log"
"$BIN" check "$T/binary.log" >"$T/out" 2>&1
expect_grep "binary bytes escaped" '0,st\\xff\\x01x' "$T/out"
if LC_ALL=C grep -q "$(printf '\377')" "$T/out"; then bad "a raw byte reached the output"; else ok "no raw byte in the output"; fi

# The official names (as in the gameSetting packet and the Java GameSetting) work too.
"$BIN" check --set maxRevote=0 --set isVoteVisible=false --settings >"$T/out" 2>&1; expect_rc "official names and the old --settings spelling" 0 $?
expect_grep "maxRevote sets max_revote" "^max_revote=0$" "$T/out"
expect_grep "isVoteVisible sets vote_visible" "^vote_visible=false$" "$T/out"
"$BIN" play --set maxTalkk=3 agents/random.lua >"$T/out" 2>&1; expect_rc "an unknown setting exits 2" 2 $?
expect_grep "the hint names --list-settings" "list-settings lists them" "$T/out"

"$BIN" check --set max_revote=0 $FIX/tcp/15p_game2/game.log >"$T/out" 2>&1; expect_rc "--set changes the rules" 1 $?
expect_grep "--set max_revote=0 rejects a revote" "max_revote=0" "$T/out"

"$BIN" check - <$FIX/tcp/5p_game6/game.log >"$T/out" 2>&1; expect_rc "stdin" 0 $?
expect_grep "stdin is named" "^<stdin>: legal" "$T/out"

# gzip logs, known by their first bytes whatever their name, on stdin too; a
# broken one is an unreadable file (exit 2) and its message names it.
L=$FIX/tcp/5p_game6/game.log
"$BIN" check --help >"$T/out" 2>&1; expect_grep "--help says .gz logs are read" "compressed with gzip" "$T/out"
gzip -c $L >"$T/g.log.gz"
"$BIN" check "$T/g.log.gz" >"$T/out" 2>&1; expect_rc "a .gz log exits 0" 0 $?
expect_grep "a .gz log is checked" "^$T/g.log.gz: legal (5 players, winner VILLAGER, 3 days)$" "$T/out"
cp "$T/g.log.gz" "$T/g-named-plain.log"
"$BIN" check "$T/g-named-plain.log" >"$T/out" 2>&1; expect_rc "gzip is known by its bytes, not its name" 0 $?
gzip -c $L | "$BIN" check - >"$T/out" 2>&1; expect_rc "a .gz log on stdin" 0 $?
expect_grep "a .gz stdin is named" "^<stdin>: legal" "$T/out"
gzip -c "$T/selfvote.log" >"$T/selfvote.log.gz"
"$BIN" check "$T/selfvote.log.gz" >"$T/out" 2>&1; expect_rc "an illegal .gz log exits 1" 1 $?
expect_grep "lines of a .gz log are counted inflated" "^$T/selfvote.log.gz:37: illegal: agent 1 votes for itself" "$T/out"
head -c 300 "$T/g.log.gz" >"$T/cut.log.gz"
"$BIN" check "$T/cut.log.gz" $L >"$T/out" 2>&1; expect_rc "a truncated .gz exits 2" 2 $?
expect_grep "a truncated .gz is named" "^aiwolf check: $T/cut.log.gz: truncated gzip data$" "$T/out"
expect_grep "the next file is still checked" "5p_game6/game.log: legal" "$T/out"
head -c 300 "$T/g.log.gz" | "$BIN" check - >"$T/out" 2>&1; expect_rc "a truncated .gz on stdin exits 2" 2 $?
expect_grep "a truncated stdin is named" "^aiwolf check: <stdin>: truncated gzip data$" "$T/out"
{ head -c 20 "$T/g.log.gz"; printf 'garbage, not deflate data at all'; } >"$T/bad.gz"
"$BIN" check "$T/bad.gz" >"$T/out" 2>&1; expect_rc "a corrupt .gz exits 2" 2 $?
expect_grep "a corrupt .gz is named" "^aiwolf check: $T/bad.gz: not valid gzip data: " "$T/out"
# A bomb: 17 members of 16 MiB of zeros (272 MiB) in about 280 KB.
head -c 16777216 /dev/zero | gzip -c >"$T/z.gz"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do cat "$T/z.gz"; done >"$T/bomb.gz"
"$BIN" check "$T/bomb.gz" >"$T/out" 2>&1; expect_rc "a gzip bomb exits 2" 2 $?
expect_grep "a gzip bomb is refused by name" "^aiwolf check: $T/bomb.gz: gzip data inflates to more than 268435456 bytes" "$T/out"

echo "$fails failed"
[ "$fails" -eq 0 ]
