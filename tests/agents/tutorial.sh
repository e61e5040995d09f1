#!/bin/sh
# The worked example of docs/agents.md (agents/tutorial.lua) plays 100 legal
# games (10 under the sanitizers) at 5 and at 15 players: no agent faults, no
# invalid utterances.
# Usage: tutorial.sh AIWOLF_BIN  (run from the project root)
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
games=100
[ -z "${AIWOLF_SANITIZED:-}" ] || games=10
for n in 5 15; do
    "$bin" play --games "$games" --players "$n" --seed 7 --quiet --events "$tmp/ev.jsonl" \
        agents/tutorial.lua agents/random.lua >"$tmp/sum.txt"
    if ! grep -q "agent faults (errors, time-outs, bad replies): 0$" "$tmp/sum.txt" || grep -q '"fault"' "$tmp/ev.jsonl"; then
        echo "FAIL: $n players: agent faults" >&2
        grep -m 5 '"fault"' "$tmp/ev.jsonl" >&2 || true
        fail=1
    fi
    if grep -q '"talkReplaced"' "$tmp/ev.jsonl"; then
        echo "FAIL: $n players: invalid utterances" >&2
        grep -m 5 '"talkReplaced"' "$tmp/ev.jsonl" >&2
        fail=1
    fi
done
exit $fail
