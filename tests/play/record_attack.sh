#!/bin/sh
# The record does not contradict itself: a werewolf whose attack vote is
# missing has its vote dropped (the rules still choose a victim), it is not
# told "nothing happens" before someone is attacked.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/noattack.lua" <<'LUA'
local a = {}
function a:update(info) self.info = info end
function a:talk() return "Over" end
function a:attack() return nil end
function a:vote()
  for i = 1, #self.info.statusMap do
    if i ~= self.info.agent and self.info.statusMap[i] == "ALIVE" then return i end
  end
end
return a
LUA
"$bin" play --seed 4 --deal 2=WEREWOLF agents/random.lua "$tmp/noattack.lua" > "$tmp/out" 2>&1
fails=0
grep -q "Agent\[02\] ATTACK: no target; this attack vote is dropped" "$tmp/out" || { echo "FAIL: no dropped vote in the record"; fails=$((fails + 1)); }
if grep -q "ATTACK: no target; nothing happens" "$tmp/out"; then echo "FAIL: 'nothing happens' for an attack vote"; fails=$((fails + 1)); fi
grep -q "is attacked and dies" "$tmp/out" || { echo "FAIL: nobody attacked (the rules pick a victim)"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "record: ok"
exit $fails
