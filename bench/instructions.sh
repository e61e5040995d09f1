#!/bin/sh
# instructions: instructions per game under callgrind, the figure to judge a
# change by on a machine whose speed wanders (times vary by a third here;
# these within about 1 %: Lua seeds its string hashes per process). For
# each agent set: `aiwolf play --quiet --jobs 1 --seed 1` of G1 games and of
# G2 games, and the difference over G2 - G1, so that the process's start and
# the first game's compiles are left out.
#
# usage: bench/instructions.sh [-p PLAYERS] [-g G1,G2] BUILD_DIR AGENT.lua...
#          one agent file per row, each in every seat (defaults: 15 players,
#          4,10 games);
#        bench/instructions.sh [-i] BUILD_DIR
#          the standard table (bench/README.md): 5 and 15 players; the
#          info-ignoring agent (bench/ignore.lua), agents/random.lua,
#          agents/sample.lua and sample.lua with random.lua alternating; in
#          process. With -i also isolated (`--isolate`): context switches
#          and system calls per request, counted with `perf stat` over host
#          and children, and how many of the switches were voluntary (a
#          task went to sleep to wait, not preempted: GNU time's rusage of
#          host and children) (each the difference between G2 and G1 games,
#          as for the instructions) (callgrind cannot follow a confined child:
#          valgrind's own system calls meet its filter, so isolated games
#          have no instruction count here, and this VM gives perf no
#          hardware counters). Requests are counted from `--events` (one
#          `call` event per request).
# Run from the project root. Needs valgrind (and perf for -i). -h, --help:
# this text.
set -eu
players=
games=
isolated=0
usage="usage: bench/instructions.sh [-p PLAYERS] [-g G1,G2] BUILD_DIR AGENT.lua... | [-i] BUILD_DIR"
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  # the comment at the top of this file, without its first line and its #s
  sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
while getopts p:g:i o; do
  case $o in
    p) players=$OPTARG ;;
    g) games=$OPTARG ;;
    i) isolated=1 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
  echo "$usage" >&2
  exit 2
fi
command -v valgrind > /dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
build=$1
shift
[ -x "$build/aiwolf" ] || { echo "instructions.sh: no $build/aiwolf" >&2; exit 1; }

span() { # G1,G2 -> checks and sets g1, g2
  g1=${1%,*}
  g2=${1#*,}
  case "$g1$g2" in *[!0-9]*|'') echo "instructions.sh: -g wants G1,G2 (numbers)" >&2; exit 2 ;; esac
  if [ "$g1" -ge "$g2" ]; then
    echo "instructions.sh: -g G1,G2 needs G1 < G2" >&2
    exit 2
  fi
}

count() { # players games agents... -> instructions of the whole run
  p=$1 g=$2
  shift 2
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$build/aiwolf" play --quiet --jobs 1 \
    --players "$p" --seed 1 --games "$g" "$@" 2>&1 > /dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

per_game() { # players agents... -> instructions per game (g1, g2 set)
  p=$1
  shift
  a=$(count "$p" "$g1" "$@")
  b=$(count "$p" "$g2" "$@")
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "instructions.sh: callgrind gave no count for $*" >&2
    exit 1
  fi
  echo $(((b - a) / (g2 - g1)))
}

if [ $# -gt 0 ]; then
  span "${games:-4,10}"
  players=${players:-15}
  printf '%-40s %14s\n' "agent ($players players)" instructions/game
  for agent in "$@"; do
    printf '%-40s %14d\n' "$agent" "$(per_game "$players" "$agent")"
  done
  exit 0
fi

# The standard table.
here=$(dirname "$0")
ignore=$here/ignore.lua
requests() { # players games agents... -> requests (call events) of the run
  p=$1 g=$2
  shift 2
  ev=$(mktemp)
  "$build/aiwolf" play --quiet --jobs 1 --players "$p" --seed 1 --games "$g" --events "$ev" "$@" > /dev/null 2>&1
  n=$(grep -c '"event":"call"' "$ev" || true)
  rm -f "$ev"
  echo "$n"
}
perf_counts() { # players games agents... -> "context-switches syscalls" of an isolated run
  p=$1 g=$2
  shift 2
  perf stat -x, -e context-switches,raw_syscalls:sys_enter "$build/aiwolf" play --isolate \
    --quiet --jobs 1 --players "$p" --seed 1 --games "$g" "$@" 2>&1 > /dev/null |
    awk -F, '$3 == "context-switches" { c = $1 } $3 == "raw_syscalls:sys_enter" { s = $1 }
             END { if (c ~ /^[0-9]+$/ && s ~ /^[0-9]+$/) print c, s }'
}
voluntary() { # players games agents... -> voluntary context switches of an isolated run
  # GNU time's %w: the rusage of the aiwolf process, which holds its children's
  # too (it waits for each); a voluntary switch is a task going to sleep (a
  # wait), an involuntary one a preemption, which other work on the machine
  # causes.
  p=$1 g=$2
  shift 2
  tf=$(mktemp)
  /usr/bin/time -f %w -o "$tf" "$build/aiwolf" play --isolate --quiet --jobs 1 --players "$p" --seed 1 \
    --games "$g" "$@" > /dev/null 2>&1 || true
  tail -n 1 "$tf" | awk '/^[0-9]+$/'
  rm -f "$tf"
}
if [ "$isolated" = 1 ]; then
  command -v perf > /dev/null || { echo "instructions.sh: -i needs perf" >&2; exit 1; }
  [ -x /usr/bin/time ] || { echo "instructions.sh: -i needs GNU time (/usr/bin/time)" >&2; exit 1; }
  printf '| players | agents | instructions/game in process | requests/game | isolated: context switches/request | of them voluntary | system calls/request |\n'
  printf '| --- | --- | --- | --- | --- | --- | --- |\n'
else
  printf '| players | agents | instructions/game in process |\n| --- | --- | --- |\n'
fi
for p in 5 15; do
  if [ "$p" = 5 ]; then span "${games:-20,60}"; else span "${games:-4,10}"; fi
  for set in ignore random sample mix; do
    # shellcheck disable=SC2016 # the labels' backquotes are Markdown's
    case $set in
      ignore) label='ignores `info`'; agents=$ignore ;;
      random) label='`random.lua`'; agents=agents/random.lua ;;
      sample) label='`sample.lua`'; agents=agents/sample.lua ;;
      mix) label='`sample.lua` and `random.lua` alternating'; agents="agents/sample.lua agents/random.lua" ;;
    esac
    # shellcheck disable=SC2086 # agents is a list of paths without spaces
    n=$(per_game "$p" $agents)
    if [ "$isolated" = 1 ]; then
      # shellcheck disable=SC2086
      r1=$(requests "$p" "$g1" $agents)
      # shellcheck disable=SC2086
      r2=$(requests "$p" "$g2" $agents)
      # shellcheck disable=SC2086,SC2046 # split on purpose: paths, then the six counts
      set -- $(perf_counts "$p" "$g1" $agents) $(perf_counts "$p" "$g2" $agents) \
        $(voluntary "$p" "$g1" $agents) $(voluntary "$p" "$g2" $agents)
      if [ $# -ne 6 ]; then
        echo "instructions.sh: no count of context switches or system calls (perf stat needs the kernel's permission: run as root, or lower /proc/sys/kernel/perf_event_paranoid)" >&2
        exit 1
      fi
      echo "$p|$label|$n|$r1|$r2|$*" | awk -F'|' -v g="$((g2 - g1))" '{
        split($6, x, " "); r = $5 - $4
        printf "| %s | %s | %.2f M | %d | %.2f | %.2f | %.2f |\n", $1, $2, $3 / 1e6, r / g,
               (x[3] - x[1]) / r, (x[6] - x[5]) / r, (x[4] - x[2]) / r }'
    else
      awk -v p="$p" -v l="$label" -v n="$n" 'BEGIN { printf "| %s | %s | %.2f M |\n", p, l, n / 1e6 }'
    fi
  done
done
