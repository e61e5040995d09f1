#!/bin/sh
# An agent that checks the shape and the secrecy of every `info` it is given
# (tests/play/inspector.lua) plays games at 5, 10 and 15 players beside
# random agents: no call may fail.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=${AIWOLF_SANITIZED:+8}
n=${n:-30}
for players in 5 10 15; do
  "$bin" play --quiet --players "$players" --games "$n" --seed 9 --events "$tmp/ev.jsonl" \
    tests/play/inspector.lua agents/random.lua > /dev/null
  if grep -q '"fault"' "$tmp/ev.jsonl"; then
    grep '"fault"' "$tmp/ev.jsonl" | head -5
    exit 1
  fi
done
echo "info shape: ok"
