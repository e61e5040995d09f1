#!/bin/sh
# Games under the NLP presets — played (nlp5, nlp13-en, nlp with 9) and in a
# contest (preset nlp, 15 players) — write logs that `aiwolf check` calls
# legal and `aiwolf replay` reproduces byte for byte, free text and cut
# talks included; the contest ranks its entries.
#   nlp_logs.sh AIWOLF
set -u
AIWOLF=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/aiwolf_nlp_logs.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "nlp_logs: FAIL $*"; fails=$((fails + 1)); }
A="tests/nlpserve/chatty.lua agents/sample.lua agents/random.lua"
"$AIWOLF" play --preset nlp5 --seed 1 --games 3 --log "$T/p5" $A >/dev/null 2>&1 || fail "play nlp5"
"$AIWOLF" play --preset nlp13-en --players 13 --seed 2 --games 2 --log "$T/p13" $A >/dev/null 2>&1 ||
    fail "play nlp13-en"
"$AIWOLF" play --preset nlp --players 9 --seed 3 --games 2 --log "$T/p9" $A >/dev/null 2>&1 || fail "play nlp 9"
"$AIWOLF" contest --out "$T/c" --preset nlp --games-per-entry 3 --jobs 1 $A >/dev/null 2>&1 || fail "contest"
n=0
for f in "$T"/p5/*.log "$T"/p13/*.log "$T"/p9/*.log "$T"/c/logs/*.log.gz; do
    [ -e "$f" ] || { fail "no log $f"; continue; }
    n=$((n + 1))
    "$AIWOLF" check "$f" | grep -q ": legal" || fail "check $f: $("$AIWOLF" check "$f" 2>&1 | head -3)"
    "$AIWOLF" replay "$f" | grep -q ": reproduced" || fail "replay $f: $("$AIWOLF" replay "$f" 2>&1 | head -3)"
done
# the length rule shows: chatty's long talks are cut (50 characters before a mention)
grep -qE ',talk,[0-9]+,[0-9]+,[0-9]+,(word ){12}wo$' "$T"/p5/*.log || fail "no talk cut to 50 characters in nlp5"
grep -q "chatty" "$T/c/report.md" || fail "the contest's report does not rank chatty"
[ "$fails" -eq 0 ] || exit 1
echo "nlp_logs: $n logs legal and reproduced"
