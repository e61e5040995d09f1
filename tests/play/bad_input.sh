#!/bin/sh
# Bad usage gets one line on stderr and exit status 2; --help works.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect_2() { # description, expected text in the message, command...
  what=$1; text=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  lines=$(wc -l < "$tmp/err")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$text" "$tmp/err"; then
    echo "FAIL: $what: exit $rc, stderr:"; cat "$tmp/err"; fails=$((fails + 1))
  fi
}
printf 'return {\n  talk = function(self) return "Over" end\n  vote = 3\n}\n' > "$tmp/syntax.lua"
printf 'return 42\n' > "$tmp/number.lua"
printf 'error("boom at load")\n' > "$tmp/raises.lua"
expect_2 "missing agent file" "no_such_agent.lua" "$bin" play no_such_agent.lua
expect_2 "syntax error" "syntax.lua:3" "$bin" play "$tmp/syntax.lua"
expect_2 "file returns a number" "must return a table" "$bin" play "$tmp/number.lua"
expect_2 "error at load" "boom at load" "$bin" play "$tmp/raises.lua"
expect_2 "unknown option" "--frobnicate" "$bin" play --frobnicate agents/random.lua
expect_2 "unknown preset" "unknown preset" "$bin" play --preset nope agents/random.lua
expect_2 "too many players" "--players" "$bin" play --players 19 agents/random.lua
expect_2 "impossible role table" "werewolves" "$bin" play --roles WEREWOLF=2,VILLAGER=2 agents/random.lua
expect_2 "no werewolf" "WEREWOLF" "$bin" play --roles SEER=1,VILLAGER=4 agents/random.lua
expect_2 "unknown role" "unknown role" "$bin" play --roles WIZARD=1 agents/random.lua
expect_2 "bad deal" "deal" "$bin" play --deal 1=SEER,2=SEER agents/random.lua
expect_2 "unknown setting" "unknown setting" "$bin" play --set max_frobs=3 agents/random.lua
expect_2 "bad setting value" "max_revote" "$bin" play --set max_revote=lots agents/random.lua
expect_2 "bad seed" "--seed" "$bin" play --seed -4 agents/random.lua
expect_2 "missing value" "--games" "$bin" play agents/random.lua --games
expect_2 "no agents" "no agents" "$bin" play
expect_2 "unknown command" "unknown command" "$bin" frobnicate
expect_2 "a word that is no file" "no agent file 'help'" "$bin" play help
expect_2 "a folder" "is a folder" "$bin" play agents/
expect_2 "one agent dealt twice" "two roles" "$bin" play --deal 1=SEER,1=WEREWOLF agents/random.lua
expect_2 "a value for a flag" "takes no value" "$bin" play --quiet=yes agents/random.lua
expect_2 "--watch for one game" "--watch reloads an agent between games" "$bin" play --watch agents/random.lua
"$bin" play --players=7 --seed=3 --quiet --log "$tmp/eq.log" agents/random.lua > /dev/null 2>&1 \
  && grep -q '^0,status,7,' "$tmp/eq.log" || { echo "FAIL: --players=7 --seed=3"; fails=$((fails + 1)); }
"$bin" play --seed 3 --quiet --events - agents/random.lua > "$tmp/ev.out" 2>/dev/null \
  && grep -q '"event":"begin"' "$tmp/ev.out" && [ ! -e ./- ] || { echo "FAIL: --events - is standard output"; fails=$((fails + 1)); }
"$bin" play --help > "$tmp/help" || { echo "FAIL: --help"; fails=$((fails + 1)); }
for opt in --preset --players --roles --set --seed --deal --games --log --events --budget --memory; do
  grep -q -- "$opt" "$tmp/help" || { echo "FAIL: --help does not explain $opt"; fails=$((fails + 1)); }
done
"$bin" --help > /dev/null || { echo "FAIL: aiwolf --help"; fails=$((fails + 1)); }
# An empty agent file says what is missing.
: > "$tmp/empty.lua"
"$bin" play "$tmp/empty.lua" 2> "$tmp/empty.err" > /dev/null
grep -q "the file returns nothing: end it with 'return agent'" "$tmp/empty.err" || { echo "FAIL: empty agent: $(cat "$tmp/empty.err")"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "bad input: ok"
exit $fails
