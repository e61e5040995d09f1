#!/bin/sh
# Every command reads its options from its table (runtime/cli/options.c):
# the same answers for an unknown option, a missing value, a value given to
# a flag and --help, and the shared rule options with the same checks.
bin=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# expect STATUS TEXT CMD ARGS...: aiwolf CMD ARGS exits STATUS and says TEXT on stderr
expect() {
  st=$1; text=$2; shift 2
  rc=0; "$bin" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || rc=$?
  [ "$rc" = "$st" ] || fail "aiwolf $*: status $rc, not $st ($(cat "$tmp/err"))"
  [ -z "$text" ] || grep -qF -e "$text" "$tmp/err" || fail "aiwolf $*: said '$(cat "$tmp/err")', not '$text'"
}
n=0
for c in play serve contest check replay connect lint new view protocol "contest merge" "contest report" "contest verify"; do
  set -- $c
  expect 2 "aiwolf $c: unknown option '--frobnicate' (aiwolf $c --help)" "$@" --frobnicate
  expect 2 "aiwolf $c: unknown option '--frobnicate' (aiwolf $c --help)" "$@" --frobnicate=1
  expect 0 "" "$@" --help
  grep -q "^usage: aiwolf $c" "$tmp/out" || fail "aiwolf $c --help: no usage line"
  # each option --help lists is one the command takes: none is unknown
  # ("--o=" then an unknown option: the parse stops with status 2 either way)
  for o in $(sed -n 's/^  \(-[a-z] [^ ,]*, \)\{0,1\}\(-[-a-z]*\).*/\2/p' "$tmp/out" | sort -u); do
    [ "$o" = "--" ] && continue
    rc=0; "$bin" "$@" "$o=" --frobnicate > /dev/null 2> "$tmp/err" < /dev/null || rc=$?
    [ $rc = 2 ] || fail "aiwolf $c $o= --frobnicate: status $rc"
    ! grep -q "unknown option '$o'" "$tmp/err" || fail "aiwolf $c: --help lists $o, which it does not take"
    n=$((n + 1))
  done
done
[ $n -ge 100 ] || fail "only $n options found in the --help texts"
# a missing value, a value for a flag
expect 2 "aiwolf play: --seed needs a value (aiwolf play --help)" play agents/random.lua --seed
expect 2 "aiwolf serve: --games needs a value (aiwolf serve --help)" serve --games
expect 2 "aiwolf contest: --jobs needs a value (aiwolf contest --help)" contest --jobs
expect 2 "aiwolf check: --preset needs a value (aiwolf check --help)" check --preset
expect 2 "aiwolf connect: -p needs a value (aiwolf connect --help)" connect -p
expect 2 "aiwolf view: --port needs a value (aiwolf view --help)" view --port
expect 2 "aiwolf play: --quiet takes no value (aiwolf play --help)" play --quiet=yes agents/random.lua
expect 2 "aiwolf lint: --quiet takes no value (aiwolf lint --help)" lint --quiet=1 agents/random.lua
# the rule group: the same checks wherever it is taken
for c in play serve; do
  expect 2 "aiwolf $c: --players: '2' is not a number of players (3 to 18)" $c --players 2 agents/random.lua
  expect 2 "aiwolf $c: -n: '19' is not a number of players (3 to 18)" $c -n 19 agents/random.lua
done
for c in play serve contest check replay; do
  expect 2 "aiwolf $c: --set needs a value" $c --set
  expect 2 "aiwolf $c: --preset needs a value" $c --preset
done
i=0; args=""; while [ $i -le 64 ]; do args="$args --set maxTalk=3"; i=$((i + 1)); done
# shellcheck disable=SC2086
expect 2 "aiwolf play: too many --set options" play $args agents/random.lua
# the limits group: the same checks wherever it is taken (the contest: its
# own bounds, capped after)
for c in play connect contest; do
  expect 2 "aiwolf $c: --memory needs a value" $c --memory
  expect 2 "aiwolf $c: --work: '0' is not a positive number of work units" $c --work 0 agents/random.lua
done
for c in play connect; do
  expect 2 "aiwolf $c: --budget: '3600001' is not a number of milliseconds (1 to 3600000)" $c --budget 3600001 agents/random.lua
  expect 2 "aiwolf $c: --memory: '65537' is not a number of megabytes (1 to 65536)" $c --memory 65537 agents/random.lua
done
expect 2 "aiwolf contest: --budget: '0' is not a positive whole number" contest --budget 0 agents/random.lua
expect 2 "aiwolf contest: --memory: 'x' is not a positive whole number" contest --memory x agents/random.lua
expect 2 "aiwolf play: --isolate takes no value" play --isolate=1 agents/random.lua
expect 2 "aiwolf connect: unknown option '--isolate'" connect --isolate agents/random.lua
expect 2 "aiwolf contest: unknown option '--isolate'" contest --isolate agents/random.lua
# the contest's workers read their arguments (runner to worker) from a table
expect 2 "aiwolf contest --worker: unknown option '--bogus'" contest --worker --dir "$tmp" --bogus 1 -- x
expect 2 "aiwolf contest --worker: --work: '-1' is not" contest --worker --dir "$tmp" --work -1 -- x
expect 2 "aiwolf contest: worker: missing arguments" contest --worker --dir "$tmp" --budget 100 --
expect 2 "aiwolf contest: worker: bad entry argument" contest --worker --dir "$tmp" --work 0 -- x
# --name=value wherever an option takes a value
expect 0 "" play --quiet --seed=5 --players=5 --set=maxTalk=3 agents/random.lua
"$bin" play --quiet --seed 5 --players 5 --set maxTalk=3 agents/random.lua > "$tmp/b" 2>&1
cmp -s "$tmp/out" "$tmp/b" || fail "play: --name=value and --name value differ"
# values in range pass, just out of range do not
expect 2 "aiwolf serve: -p: '65536' is not a port number (0 to 65535)" serve -p 65536
expect 2 "aiwolf play: --pace: '60001' is not a number of milliseconds (0 to 60000)" play --pace 60001 agents/random.lua
expect 2 "aiwolf protocol: --describe: 'fr' is not one of en|ja" protocol --describe fr
expect 2 "aiwolf contest verify: --sample: '0' is not a positive whole number" contest verify --sample 0 x
echo "ok ($n options of the --help texts)"
