-- info_mutate.lua: changes entries of its info's maps and checks what
-- docs/agents.md says happens: an entry keeps the agent's value until the
-- game changes it, and is the truth from then on. Any failed check raises,
-- which the game counts as a fault (tests/luaseat/test_info.c wants none).
local agent = {}

function agent:update(info)
  local me = info.agent
  if not self.marked and info.day == 1 and info.statusMap[me] == "ALIVE" and (info.remainTalkMap[me] or 0) > 1 then
    info.statusMap[me] = "MINE"
    info.remainTalkMap[me] = 999
    self.marked, self.talked, self.info = true, false, info
    print("marked")
    return
  end
  if not self.marked then return end
  assert(self.info == info, "info is not the same table all game")
  local s = info.statusMap[me]
  assert(s == "MINE" or s == "DEAD", "statusMap entry rewritten though the game did not change it: " .. tostring(s))
  if self.talked and info.day == 1 and info.remainTalkMap[me] ~= nil then
    assert(info.remainTalkMap[me] < 999, "remainTalkMap entry not rewritten after the count changed")
  end
end

function agent:finish()
  if self.talked then print("checked after a talk") end
end

function agent:talk()
  if self.marked then self.talked = true end
  return "ESTIMATE Agent[01] WEREWOLF"
end

return agent
