#!/bin/sh
# serve_bench: games over loopback TCP — one `aiwolf serve` with K concurrent
# 15-player games and 15*K `aiwolf connect` clients (agents/random.lua), as
# in a contest of remote agents. Prints games/s end to end, requests/s, and
# the p50/p99 time of a request to a remote agent as the server measures it
# (from sending the packet to having the answer, which includes the
# client's Lua agent; the "us" of every call in the JSON events).
# usage: bench/serve_bench.sh [BUILD_DIR] [K...]   (default K: 1 10 50)
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
ks=${*:-1 10 50}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in $ks; do
  games=$((k * 4))
  "$build/aiwolf" serve -p 0 -n 15 --games "$games" --parallel "$k" --seed 1 --quiet \
    --time-limit 5000 --events "$tmp/ev.jsonl" > "$tmp/serve.out" 2>&1 &
  spid=$!
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's/^listening on port \([0-9]*\)$/\1/p' "$tmp/serve.out")
    [ -n "$port" ] && break
    sleep 0.05
  done
  start=$(date +%s.%N)
  for _ in $(seq $((15 * k))); do
    "$build/aiwolf" connect -p "$port" --quiet agents/random.lua > /dev/null 2>&1 &
  done
  wait "$spid"
  end=$(date +%s.%N)
  wait
  grep '"event":"call"' "$tmp/ev.jsonl" | sed 's/.*"us":\([0-9]*\).*/\1/' | sort -n > "$tmp/us"
  awk -v k="$k" -v g="$games" -v t0="$start" -v t1="$end" '
    { us[n++] = $1 }
    END {
      secs = t1 - t0
      printf "K=%-3d %3d games of 15 players in %.2f s: %.2f games/s, %d requests (%.0f/s), p50 %.2f ms, p99 %.2f ms\n",
             k, g, secs, g / secs, n, n / secs, us[int(n * 0.5)] / 1000, us[int(n * 0.99)] / 1000
    }' "$tmp/us"
done
