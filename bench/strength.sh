#!/bin/sh
# strength.sh: mixed games on `aiwolf serve` between Lua agents of ours
# (local seats) and any client that speaks the official wire protocol (the
# official Java sample, a past contest agent, `aiwolf connect X.lua`, ...),
# then win rates per agent name and per role, with 95 % intervals that hold
# for an agent's seats in one game being correlated (the game is the unit
# sampled: docs/contest.md, "What the figures count"; the same estimator as
# `aiwolf play --games`).
#
# usage: bench/strength.sh [-b BUILD] [-n PLAYERS] [-g GAMES] [-s SEED]
#                          [-k OURS] [-t MS] [-o OUT] OURS.lua [...] -- CLIENT-COMMAND...
#   OURS.lua    our agents, given to the local seats in turn
#   -k OURS     local seats per game (default: PLAYERS/2 rounded up; the
#               client fills the others); the split is swapped half way
#               (the second half of the games gives the client the larger
#               share), so neither side always holds the majority
#   CLIENT-COMMAND  started once per remote seat (each start is one agent on
#               one connection, kept for every game); {port} in it is
#               replaced by the server's port, {i} by the client's index
#   -t MS       how long a remote agent may take to answer (serve's
#               --time-limit; default: the preset's 1000 ms). Java clients
#               on a loaded machine miss 1000 ms while the JVM warms up, and
#               three misses in a row put them out of the game: raise it for
#               a strength run (our local seats keep their CPU budget). It
#               is also serve's --name-timeout when above that one's 5000 ms
#               (a JVM starting under load can take longer to answer NAME,
#               and a client closed before its game leaves the server waiting)
#   -o OUT      keep the events files and the table in OUT (default: a
#               temporary folder, removed)
#   -e EVENTS   play nothing: tabulate the games of an events file written
#               by `aiwolf play --games N --events EVENTS` or `aiwolf serve
#               --events` (repeatable; same table, same intervals), e.g.
#               for in-process mixed games of strong and sample.lua:
#   aiwolf play --games 2000 --jobs 1 --events e.jsonl agents/strong/main.lua agents/sample.lua
#   bench/strength.sh -e e.jsonl
# Examples:
#   bench/strength.sh -n 5 -g 200 agents/strong/main.lua -- \
#       build/aiwolf connect -p {port} --quiet -n sample agents/sample.lua
#   bench/strength.sh -n 15 -g 2000 agents/strong/main.lua -- \
#       java -cp CLASSES:jsonic.jar org.aiwolf.common.bin.ClientStarter \
#       -h localhost -p {port} -c org.aiwolf.sample.player.SampleRoleAssignPlayer -n official
#   (the official sample built from aiwolf/AIWolfCommon and aiwolf/AIWolfClient:
#   javac -cp jsonic.jar -d CLASSES $(find AIWolfCommon/src AIWolfClient/src -name '*.java'),
#   jsonic-1.3.2.jar from AIWolfClient's lib/) -n official
# Figures are per agent NAME (what each seat answered to NAME; local seats:
# getName), so give different agents different names. Run it with `nice`
# on a shared machine: the server and every client are separate processes.
set -eu
build=build players=5 games=100 seed=1 ours_seats= out= tables= time_limit=
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -n) players=$2; shift 2 ;;
    -g) games=$2; shift 2 ;;
    -s) seed=$2; shift 2 ;;
    -k) ours_seats=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -e) [ -f "$2" ] || { echo "strength.sh: $2: no such file" >&2; exit 2; }
        tables="$tables $2"; shift 2 ;;
    -t) time_limit=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) break ;;
    -*) echo "strength.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
command -v jq >/dev/null || { echo "strength.sh: needs jq" >&2; exit 2; }
if [ -n "$tables" ]; then
  [ $# -eq 0 ] || { echo "strength.sh: -e takes no agents or client command" >&2; exit 2; }
  if [ -z "$out" ]; then out=$(mktemp -d); rm_out=$out; fi
  mkdir -p "$out"; tmp=$out
  trap '[ -z "${rm_out:-}" ] || rm -rf "$rm_out"' EXIT INT TERM
  files=$tables
else
ours=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do ours="$ours $1"; shift; done
[ $# -gt 1 ] && [ "$1" = "--" ] || { echo "strength.sh: give OURS.lua ... -- CLIENT-COMMAND (--help)" >&2; exit 2; }
shift
[ -n "$ours" ] || { echo "strength.sh: no agent of ours given" >&2; exit 2; }
for f in $ours; do [ -f "$f" ] || { echo "strength.sh: $f: no such file" >&2; exit 2; }; done
[ -n "$ours_seats" ] || ours_seats=$(( (players + 1) / 2 ))
case $time_limit in
  '') ;;
  *[!0-9]*) echo "strength.sh: -t must be a number of milliseconds" >&2; exit 2 ;;
esac
limits=
if [ -n "$time_limit" ]; then
  limits="--time-limit $time_limit"
  [ "$time_limit" -gt 5000 ] && limits="$limits --name-timeout $time_limit"
fi
[ "$ours_seats" -ge 1 ] && [ "$ours_seats" -lt "$players" ] ||
  { echo "strength.sh: -k must be 1..$((players - 1))" >&2; exit 2; }
if [ -n "$out" ]; then mkdir -p "$out"; tmp=$out; else tmp=$(mktemp -d); fi
pids=
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  [ -n "$out" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# run HALF LOCAL GAMES SEED: one serve with LOCAL of our seats, the client
# started PLAYERS-LOCAL times; events in $tmp/HALF.jsonl
run() {
  half=$1 local=$2 n=$3 s=$4
  agents= i=1
  nours=$(echo $ours | wc -w)
  while [ "$i" -le "$local" ]; do # our agents in turn over the local seats
    f=$(echo $ours | tr ' ' '\n' | sed -n "$(( (i - 1) % nours + 1 ))p")
    agents="$agents --agent $i=$f"
    i=$((i + 1))
  done
  # shellcheck disable=SC2086
  "$build/aiwolf" serve -p 0 -n "$players" --games "$n" --seed "$s" --quiet \
    --events "$tmp/$half.jsonl" $limits $agents > "$tmp/$half.serve" 2>&1 &
  spid=$!
  pids="$pids $spid"
  port=
  for _ in $(seq 400); do
    port=$(sed -n 's/^listening on port \([0-9]*\)$/\1/p' "$tmp/$half.serve" 2>/dev/null || true)
    [ -n "$port" ] && break
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.05
  done
  [ -n "$port" ] || { cat "$tmp/$half.serve" >&2; echo "strength.sh: the server did not start" >&2; exit 1; }
  c=1
  while [ "$c" -le $((players - local)) ]; do
    cmd=$(printf '%s\n' "$CLIENT" | sed "s/{port}/$port/g; s/{i}/$c/g")
    sh -c "exec $cmd" > "$tmp/$half.client$c" 2>&1 &
    pids="$pids $!"
    c=$((c + 1))
  done
  wait "$spid" || { cat "$tmp/$half.serve" >&2; exit 1; }
}

# The client command, each word quoted for sh -c.
CLIENT=
for w in "$@"; do CLIENT="$CLIENT '$(printf '%s' "$w" | sed "s/'/'\\\\''/g")'"; done
first=$((games / 2))
second=$((games - first))
[ "$first" -gt 0 ] && run a "$ours_seats" "$first" "$seed"
[ "$second" -gt 0 ] && run b $((players - ours_seats)) "$second" $((seed + first))
wait 2>/dev/null || true
files="$tmp/a.jsonl $tmp/b.jsonl"
fi

# One line per (game, seat): game-key name role won
nf=0
for f in $files; do
  [ -f "$f" ] || continue
  nf=$((nf + 1))
  jq -r --arg h "$nf" '
    select(.event == "begin" or .event == "result") |
    if .event == "begin" then "B \($h):\(.game) " + ([.agents[] | "\(.name)|\(.role)"] | join(" "))
    else "R \($h):\(.game) \(.winner)" end' "$f"
done | awk '
  # seats of the begin line; the result line settles them
  $1 == "B" { seats[$2] = $0; next }
  $1 == "R" {
    if (!($2 in seats)) next
    split(seats[$2], s, " "); winner = $3
    for (i = 3; i <= length(s); i++) {
      split(s[i], nr, "|"); role = nr[2]
      team = (role == "WEREWOLF" || role == "POSSESSED") ? "WEREWOLF" : "VILLAGER"
      print $2, nr[1], role, (team == winner) ? 1 : 0
    }
  }' > "$tmp/seats.txt"

# Win rate per name and per (name, role): the cluster-robust ratio estimator
# over games (w wins over m seats in each game), Wilson's interval at the
# effective number of seats, Student's t for n-1 degrees of freedom.
awk '
  function tq(df) { # 0.975 quantile of Student t (Cornish-Fisher, good to 1e-3 for df >= 3)
    z = 1.959964
    if (df < 1) return 12.706
    return z + (z^3 + z) / (4 * df) + (5 * z^5 + 16 * z^3 + 3 * z) / (96 * df^2)
  }
  function add(key, g, won) {
    k = key SUBSEP g
    if (!(k in m)) { games[key]++; order[key] = 1; glist[key] = glist[key] " " g }
    m[k]++; w[k] += won; W[key] += won; M[key]++
  }
  { add($2 SUBSEP "all", $1, $4); add($2 SUBSEP $3, $1, $4) }
  END {
    for (key in order) {
      split(key, p, SUBSEP)
      R = W[key] / M[key]; G = games[key]
      split(substr(glist[key], 2), gl, " ")
      ss = 0
      for (y in gl) { k = key SUBSEP gl[y]; d = w[k] - R * m[k]; ss += d * d }
      lo = 0; hi = 1
      if (G > 1) {
        V = G / (G - 1) * ss / (M[key] * M[key])
        neff = (V > 0) ? R * (1 - R) / V : M[key]
        if (R == 0 || R == 1) neff = M[key]
        t = tq(G - 1); t2 = t * t
        c = (R + t2 / (2 * neff)) / (1 + t2 / neff)
        h = t / (1 + t2 / neff) * sqrt(R * (1 - R) / neff + t2 / (4 * neff * neff))
        lo = c - h; hi = c + h; if (lo < 0) lo = 0; if (hi > 1) hi = 1
      }
      printf "%-24s %-10s %7d %7d %7d  %5.1f%% (%.1f-%.1f%%)\n", p[1], p[2], G, M[key], W[key], 100 * R, 100 * lo, 100 * hi
    }
  }' "$tmp/seats.txt" | sort -k1,1 -k2,2 > "$tmp/rows.txt"
{
  printf "%-24s %-10s %7s %7s %7s  %s\n" agent role games seats won "rate (95% interval, per game)"
  cat "$tmp/rows.txt"
} | tee "$tmp/table.txt"
# shellcheck disable=SC2086
faults=$(cat $files 2>/dev/null | grep -c '"fault"' || true)
if [ -n "$tables" ]; then
  echo "games: $(cat $tables | grep -c '"event":"result"') from$tables; calls with a fault: $faults"
else
  echo "games: $games (split $ours_seats/$((players - ours_seats)) then swapped); calls with a fault: $faults"
fi
