#!/bin/sh
# Plays 300 games of agents/sample.lua against agents/random.lua at 5 and at
# 15 players (seats alternate between the two files) and checks: no agent
# faults, no utterance replaced as invalid (talkReplaced), both teams win
# sometimes, and sample.lua wins more often than random.lua. Then replays 20
# games from the same seed and checks the logs are identical (determinism).
# Usage: sample_vs_random.sh AIWOLF_BIN  (run from the project root)
set -eu
bin=$1
# Under the sanitizers (tests/run sets AIWOLF_SANITIZED) fewer games: legality
# only; the win rates are checked in the normal build.
if [ -n "${AIWOLF_SANITIZED:-}" ]; then
    games=${GAMES:-40} replays=4
else
    games=${GAMES:-300} replays=20
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

err() { echo "FAIL: $*" >&2; fail=1; }

# rate AGENTFILE SUMMARY: the agent's win rate in tenths of a percent
rate() { awk -v a="$1" '$1 == a { sub("%", "", $4); printf "%d", $4 * 10; exit }' "$2"; }
# wins TEAM SUMMARY: the team's wins
wins() { awk -v t="$1" '$1 == t && NF == 3 { print $2; exit }' "$2"; }

for n in 5 15; do
    sum=$tmp/summary$n.txt
    ev=$tmp/events$n.jsonl
    "$bin" play --games "$games" --players "$n" --seed 20261122 --quiet --events "$ev" \
        agents/sample.lua agents/random.lua >"$sum"
    cat "$sum"
    grep -q "agent faults (errors, time-outs, bad replies): 0$" "$sum" || err "$n players: agent faults"
    if grep -q '"fault"' "$ev"; then
        err "$n players: faults in the events:"
        grep -m 5 '"fault"' "$ev" >&2
    fi
    if grep -q '"talkReplaced"' "$ev"; then
        err "$n players: invalid utterances:"
        grep -m 5 '"talkReplaced"' "$ev" >&2
    fi
    results=$(grep -c '"event":"result"' "$ev" || true)
    [ "$results" -eq "$games" ] || err "$n players: $results results for $games games"
    vw=$(wins VILLAGER "$sum")
    ww=$(wins WEREWOLF "$sum")
    [ "$vw" -gt 0 ] && [ "$vw" -ge $((games / 10)) ] || err "$n players: the village won only $vw games"
    [ "$ww" -gt 0 ] && [ "$ww" -ge $((games / 10)) ] || err "$n players: the werewolves won only $ww games"
    s=$(rate agents/sample.lua "$sum")
    r=$(rate agents/random.lua "$sum")
    echo "$n players: sample.lua wins $s/1000, random.lua $r/1000"
    [ "$games" -lt 200 ] || [ "$s" -gt "$r" ] ||
        err "$n players: sample.lua ($s/1000) does not beat random.lua ($r/1000)"
done
# The same seed gives the same games.
for run in a b; do
    "$bin" play --games "$replays" --players 15 --seed 4242 --quiet --log "$tmp/$run" \
        agents/sample.lua agents/random.lua >/dev/null
done
diff -r "$tmp/a" "$tmp/b" >/dev/null || err "the same seed gave different games"
exit $fail
