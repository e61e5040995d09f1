#!/bin/sh
# --work: a deterministic budget. An agent whose talk costs more work each
# day is stopped by the work budget, at the same calls in two runs (the
# wall-clock budget is far away), and the game goes on legally.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/work.lua" <<'LUA'
local a = {}
function a:update(info) self.info = info end
function a:talk()
  local n = 0
  for i = 1, 20000 * self.info.day do n = n + i end
  return "Over"
end
return a
LUA
for i in 1 2; do
  "$bin" play --quiet --seed 4 --work 20000 --budget 5000 --log "$tmp/$i.log" --events "$tmp/$i.jsonl" \
    "$tmp/work.lua" agents/random.lua
  grep '"fault"' "$tmp/$i.jsonl" | sed 's/"us":[0-9]*,//; s/ (after [^)]*)//' > "$tmp/$i.faults"
done
grep -q 'work budget of 20000 units exceeded' "$tmp/1.faults" || { echo "no work-budget fault"; exit 1; }
cmp "$tmp/1.faults" "$tmp/2.faults" || { echo "the work budget stopped different calls in two runs"; exit 1; }
cmp "$tmp/1.log" "$tmp/2.log"
"$bin" check --quiet "$tmp/1.log"
echo "work budget: ok"
