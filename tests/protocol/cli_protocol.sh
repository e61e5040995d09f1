#!/bin/sh
# cli_protocol: `aiwolf protocol` prints one verdict line per input line, in
# order, with the canonical text or the error's byte offset; bad options exit 2.
set -u
BIN="$1"
fail=0
check() { # name expected actual
  if [ "$2" != "$3" ]; then
    printf 'FAIL %s\n--- expected\n%s\n--- got\n%s\n' "$1" "$2" "$3"
    fail=1
  fi
}
TAB=$(printf '\t')

out=$(printf 'VOTE Agent[1]\nOVER\nREQUEST Agent[02] (Agent[02] VOTE Agent[01])\nBECAUSE (VOTE Agent[01])\n\nOver \n' | "$BIN" protocol)
check strict "valid${TAB}VOTE Agent[01]
invalid${TAB}at byte 0: expected 'Over' or 'Skip' spelled exactly so (other spellings only in lenient mode)
valid${TAB}REQUEST Agent[02] (VOTE Agent[01])
invalid${TAB}at byte 8: BECAUSE needs 2 parenthesised sentences, found 1
invalid${TAB}at byte 0: expected a sentence
valid${TAB}Over" "$out"

out=$(printf 'OVER\nAgent1 VOTE Agent2\nvote Agent1\n' | "$BIN" protocol --lenient)
check lenient "valid${TAB}Over
valid${TAB}Agent[01] VOTE Agent[02]
valid${TAB}VOTE Agent[01]" "$out"

out=$(printf 'Agent[01] DIVINED Agent[03] WEREWOLF\n' | "$BIN" protocol --describe en)
check describe_en "valid${TAB}Agent[01] DIVINED Agent[03] WEREWOLF${TAB}Agent[01] says Agent[03] is a werewolf (divined)" "$out"
out=$(printf 'Agent[01] DIVINED Agent[03] WEREWOLF\n' | "$BIN" protocol --describe=ja)
check describe_ja "valid${TAB}Agent[01] DIVINED Agent[03] WEREWOLF${TAB}Agent[01]はAgent[03]を占って人狼だった" "$out"

# Utterances as arguments; a strict refusal that lenient mode accepts says so.
out=$("$BIN" protocol 'VOTE Agent[01]' 'vote agent3' --describe en)
check args "valid${TAB}VOTE Agent[01]${TAB}the speaker will vote for Agent[01]
invalid${TAB}at byte 0: expected a verb or operator (VOTE, ESTIMATE, REQUEST, ...) (valid with --lenient, as VOTE Agent[03])" "$out"

# A NUL byte inside a line is an error at its offset, not a truncation.
out=$(printf 'VOTE\000Agent[01]\n' | "$BIN" protocol)
check nul "invalid${TAB}at byte 4: expected a space after VOTE" "$out"

# Exit statuses.
printf 'garbage\n' | "$BIN" protocol >/dev/null; check status_ok 0 $?
"$BIN" protocol --bogus </dev/null 2>/dev/null; check status_bad_option 2 $?
"$BIN" protocol --describe fr </dev/null 2>/dev/null; check status_bad_lang 2 $?
n=$("$BIN" protocol --bogus </dev/null 2>&1 | wc -l); check one_line_error 1 "$n"
"$BIN" protocol --help | grep -q -- '--lenient'; check help 0 $?

# A long line (1 MiB of nested-free AND operands) is answered, not choked on.
out=$(awk 'BEGIN { printf "AND"; for (i = 0; i < 60000; i++) printf " (VOTE Agent[01])"; printf "\n" }' | "$BIN" protocol | cut -c1-5)
check long_line "valid" "$out"

exit $fail
