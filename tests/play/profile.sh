#!/bin/sh
# play --profile: where each agent file's Lua ran. An agent that spends its
# calls in one function shows it on top with most of the samples, short
# calls are sampled too (the hook's countdown runs on from call to call), the
# library's functions are named where they are and charged to the line of
# the agent that called them, the games are the same
# with and without it, and it refuses what it cannot do.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/hot.lua" <<'LUA'
local agent = {}
local function burn(n)
  local x = 0
  for i = 1, n do x = x + i % 7 end
  return x
end
function agent:update(info) self.info = info end
function agent:talk() burn(5000) return "Over" end
return agent
LUA
# Calls of a few VM instructions each: only a countdown that runs on from
# call to call samples them.
cat > "$tmp/short.lua" <<'LUA'
local agent = {}
local function short(self) self.n = (self.n or 0) + 1 end
function agent:update(info) short(self) end
return agent
LUA
"$bin" play --profile --games 20 --players 5 --seed 3 "$tmp/hot.lua" "$tmp/short.lua" > "$tmp/out"
# burn has most of hot.lua's samples
awk -v f="$tmp/hot.lua" '
  index($0, "profile of " f " ") == 1 { on = 1; next }
  on && /^profile of / { on = 0 }
  on && / burn \(/ { sub("%", "", $1); if ($1 + 0 >= 80) ok = 1 }
  END { exit !ok }' "$tmp/out" || { echo "burn is not at 80 % or more of hot.lua's profile"; cat "$tmp/out"; exit 1; }
grep -q "^profile of $tmp/short.lua (2 seats, 20 games): " "$tmp/out" || { echo "no profile of short.lua"; cat "$tmp/out"; exit 1; }
grep -q "short ($tmp/short.lua:2)" "$tmp/out" || { echo "short calls were not sampled"; cat "$tmp/out"; exit 1; }
# The host's own Lua (the maker of each game's environment) is not the agent's.
if grep -q "sandbox-maker" "$tmp/out"; then echo "the host's maker is in an agent's profile"; cat "$tmp/out"; exit 1; fi
# The library is profiled where it is, and the games are those played without --profile.
"$bin" play --profile --games 6 --players 15 --seed 9 --log "$tmp/with" agents/sample.lua agents/random.lua > "$tmp/out2"
"$bin" play --games 6 --jobs 1 --players 15 --seed 9 --log "$tmp/without" agents/sample.lua agents/random.lua > /dev/null
diff -r "$tmp/with" "$tmp/without" > /dev/null || { echo "--profile changed the games"; exit 1; }
grep -q "(lua/aiwolf/agent.lua:" "$tmp/out2" || { echo "the base agent's functions are not in sample.lua's profile"; exit 1; }
# a module's main chunk (what require runs) is named so, not "FILE:0"
if grep -q ' -> .*:0$' "$tmp/out2"; then echo "a library function at line 0:"; grep ' -> .*:0$' "$tmp/out2"; exit 1; fi

# An agent that spends its calls in the library: the library's function is
# listed where it is, and charged again to the agent's line that called it.
cat > "$tmp/lib.lua" <<'LUA'
local A = require "aiwolf.agent"
local agent = {}
function agent:update(info) self.info = info end
function agent:talk()
  local list = {}
  for i = 1, 300 do list[i] = i end
  for _ = 1, 30 do A.best(list, function(x) return -x end) end
  return "Over"
end
return agent
LUA
"$bin" play --profile --games 3 --players 5 --seed 4 "$tmp/lib.lua" > "$tmp/out3"
grep -q " best (lua/aiwolf/agent.lua:[0-9]*)$" "$tmp/out3" || { echo "A.best is not listed"; cat "$tmp/out3"; exit 1; }
grep -q "the library's .* by the line of $tmp/lib.lua that called it:" "$tmp/out3" ||
  { echo "no library section"; cat "$tmp/out3"; exit 1; }
awk -v f="$tmp/lib.lua:7" '
  index($3, f) == 1 && $4 == "->" && $5 == "best" { sub("%", "", $1); if ($1 + 0 >= 50) ok = 1 }
  END { exit !ok }' "$tmp/out3" || { echo "A.best is not charged to lib.lua:7"; cat "$tmp/out3"; exit 1; }

# What it cannot do.
if "$bin" play --profile --isolate --games 2 agents/random.lua > /dev/null 2> "$tmp/err"; then
  echo "--profile --isolate was accepted"; exit 1
fi
grep -q -- "--profile does not work with --isolate" "$tmp/err" || { cat "$tmp/err"; exit 1; }
if "$bin" play --profile --jobs 2 --games 2 agents/random.lua > /dev/null 2> "$tmp/err"; then
  echo "--profile --jobs 2 was accepted"; exit 1
fi
grep -q -- "--profile is written by one process" "$tmp/err" || { cat "$tmp/err"; exit 1; }
echo "profile: ok"
