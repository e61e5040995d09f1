#!/bin/sh
# `aiwolf play --isolate`: agents in confined child processes.
#  - random.lua games are legal (aiwolf check) and byte-identical to the
#    in-process games with the same seeds, under every preset, at 5, 9 and
#    15 players, with no fault;
#  - the inspector agent (tests/play/inspector.lua) finds every info it is
#    given well-formed and free of secrets, through the wire format too;
#  - what agents print reaches the host's stderr with their prefix;
#  - an agent that prints all its info at every call (tests/luaseat/
#    info_dump.lua, talks' parsed trees included, read on their day and on
#    a later one) prints the same in a child as in process, beside
#    sample.lua's protocol talks (a child parses a talk only when its agent
#    reads `parsed`);
#  - agents that fail in Lua (an error, wrong reply types, an endless loop,
#    a memory hog) get the same faults as in process, from inside the child,
#    and the game goes on and stays legal;
#  - an agent that requires a module from its own folder plays (the child
#    may read that folder, through Landlock);
#  - --watch is refused with --isolate.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for preset in aiwolf seed2015 regulation; do
  for players in 5 9 15; do
    "$bin" play --quiet --preset "$preset" --players "$players" --games 4 --seed 11 \
      --log "$tmp/in" agents/random.lua > /dev/null
    "$bin" play --isolate --quiet --preset "$preset" --players "$players" --games 4 --seed 11 \
      --log "$tmp/iso" --events "$tmp/ev.jsonl" agents/random.lua > /dev/null
    "$bin" check --quiet --preset "$preset" "$tmp"/iso/*.log
    diff -r "$tmp/in" "$tmp/iso" > /dev/null || { echo "$preset $players: isolated logs differ"; exit 1; }
    if grep -q '"fault"' "$tmp/ev.jsonl"; then
      echo "$preset $players: faults in isolated games:"; grep '"fault"' "$tmp/ev.jsonl" | head -3; exit 1
    fi
    rm -rf "$tmp/in" "$tmp/iso"
  done
done

"$bin" play --isolate --quiet --players 10 --games 10 --seed 9 --events "$tmp/ev.jsonl" \
  tests/play/inspector.lua agents/random.lua > /dev/null
if grep -q '"fault"' "$tmp/ev.jsonl"; then
  grep '"fault"' "$tmp/ev.jsonl" | head -5; exit 1
fi

cat > "$tmp/printer.lua" <<'LUA'
local a = {}
function a:getName() print("hello from the child") return "printer" end
return a
LUA
"$bin" play --isolate --seed 3 --quiet --agent-output "$tmp/printer.lua" agents/random.lua 2> "$tmp/err" > /dev/null
grep -q '^\[Agent\[01\] printer\] hello from the child$' "$tmp/err" || { echo "agent output lost"; cat "$tmp/err"; exit 1; }

for players in 7 15; do
  for mode in "" --isolate; do
    # Each agent's lines in order (the agents of a batch print in another
    # order in children, running side by side).
    "$bin" play $mode --quiet --players "$players" --seed 21 --agent-output \
      tests/luaseat/info_dump.lua agents/sample.lua agents/random.lua 2>&1 > /dev/null |
      grep '^\[Agent\[[0-9]*\] info_dump\]' | sort -s -t']' -k1,1 > "$tmp/dump$mode"
  done
  # trees read on their day, and on a later day
  grep -qE ':(ESTIMATE|VOTE) Agent\[[0-9]+\][^:]*:(ESTIMATE|VOTE) Agent' "$tmp/dump" &&
    grep -qE '\] [0-9]+=(ESTIMATE|VOTE) Agent' "$tmp/dump" || { echo "info_dump printed no parsed talk"; exit 1; }
  cmp -s "$tmp/dump" "$tmp/dump--isolate" || {
    echo "$players players: info_dump's view differs in a child"; diff "$tmp/dump" "$tmp/dump--isolate" | head -5; exit 1
  }
done

cat > "$tmp/hog.lua" <<'LUA'
return { talk = function() local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(1000) .. i end end }
LUA
"$bin" play --isolate --quiet --players 5 --seed 5 --budget 500 --memory 16 --log "$tmp/game.log" \
  --events "$tmp/ev.jsonl" tests/play/faulty/raises.lua tests/play/faulty/wrongtype.lua tests/play/faulty/loops.lua "$tmp/hog.lua" agents/random.lua
"$bin" check --quiet "$tmp/game.log"
grep -q '"fault":"error","message":"[^"]*talk is broken' "$tmp/ev.jsonl" || { echo "no error fault"; exit 1; }
grep -q '"fault":"reply"' "$tmp/ev.jsonl" || { echo "no reply fault"; exit 1; }
grep -q '"call":"VOTE"[^}]*"fault":"timeout"' "$tmp/ev.jsonl" || { echo "no timeout fault"; exit 1; }
grep -q '"fault":"memory"' "$tmp/ev.jsonl" || { echo "no memory fault"; exit 1; }
grep -q '"event":"substitute"' "$tmp/ev.jsonl" || { echo "no substitute"; exit 1; }
# The Lua sandbox stopped all of these inside the child: no child was lost.
if grep -q '"fault":"lost"' "$tmp/ev.jsonl"; then grep '"fault":"lost"' "$tmp/ev.jsonl" | head -3; exit 1; fi

# An agent in its own folder with a module beside it: the child may read that
# folder (Landlock) and nothing else; where the kernel has no Landlock the
# module cannot load and the agent's calls fail with an error instead.
mkdir "$tmp/multi"
cat > "$tmp/multi/helper.lua" <<'LUA'
return { pick = function(info)
  for a = #info.statusMap, 1, -1 do
    if info.statusMap[a] == "ALIVE" and a ~= info.agent then return a end
  end
end }
LUA
cat > "$tmp/multi/agent.lua" <<'LUA'
local a = {}
function a:update(info) self.info = info end
function a:vote() return require("helper").pick(self.info) end
function a:talk()
  local ok = pcall(function() local f = io.open("/etc/passwd") end)
  return "Over"
end
return a
LUA
"$bin" play --isolate --quiet --seed 4 --events "$tmp/ev.jsonl" --log "$tmp/multi.log" \
  "$tmp/multi/agent.lua" agents/random.lua > /dev/null
"$bin" check --quiet "$tmp/multi.log"
# (test_childseat checks that the module loads where the kernel has Landlock)

if "$bin" play --isolate --watch agents/random.lua > /dev/null 2>&1; then
  echo "--watch with --isolate was accepted"; exit 1
fi
echo "isolate play: ok"
