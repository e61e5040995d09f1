#!/bin/sh
# instructions: instructions per game under callgrind, the figure to judge a
# change by on a machine whose speed wanders (times vary by a third here;
# these by about 0.1 %). For each agent file: `aiwolf play --quiet --jobs 1
# --seed 1` of G1 games and of G2 games, and the difference over G2 - G1, so
# that the process's start and the first game's compiles are left out.
# usage: bench/instructions.sh [-p PLAYERS] [-g G1,G2] BUILD_DIR AGENT.lua...
#        (defaults: 15 players, 4,10 games). Needs valgrind.
set -eu
players=15
games=4,10
while getopts p:g: o; do
  case $o in
    p) players=$OPTARG ;;
    g) games=$OPTARG ;;
    *) echo "usage: bench/instructions.sh [-p PLAYERS] [-g G1,G2] BUILD_DIR AGENT.lua..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
  echo "usage: bench/instructions.sh [-p PLAYERS] [-g G1,G2] BUILD_DIR AGENT.lua..." >&2
  exit 2
fi
command -v valgrind > /dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
build=$1
shift
g1=${games%,*}
g2=${games#*,}
if [ "$g1" -ge "$g2" ]; then
  echo "instructions.sh: -g G1,G2 needs G1 < G2" >&2
  exit 2
fi
count() { # games agent -> instructions of the whole run
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$build/aiwolf" play --quiet --jobs 1 \
    --players "$players" --seed 1 --games "$1" "$2" 2>&1 > /dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-40s %14s\n' "agent ($players players)" instructions/game
for agent in "$@"; do
  a=$(count "$g1" "$agent")
  b=$(count "$g2" "$agent")
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "instructions.sh: callgrind gave no count for $agent" >&2
    exit 1
  fi
  printf '%-40s %14d\n' "$agent" $(((b - a) / (g2 - g1)))
done
