-- random.lua: legal random play. Votes, divines, guards and attacks a random
-- living agent (never itself; werewolves never pick a fellow werewolf), and
-- talks a random vote or estimate now and then before saying Over.
local P = require "aiwolf.protocol"

local agent = {}

local function living_others(info, skip_wolves)
  local list = {}
  for a, status in pairs(info.statusMap) do
    if status == "ALIVE" and a ~= info.agent
       and not (skip_wolves and info.roleMap[a] == "WEREWOLF") then
      list[#list + 1] = a
    end
  end
  table.sort(list) -- pairs() order is not fixed: sort so the game replays exactly
  return list
end

local function pick(list)
  if #list == 0 then return nil end
  return list[math.random(#list)]
end

function agent:getName() return "random" end

function agent:update(info) self.info = info end

function agent:dayStart() self.talks = 0 end

function agent:talk()
  self.talks = self.talks + 1
  if self.talks > 3 or math.random() < 0.3 then return P.print(P.over()) end
  local target = pick(living_others(self.info))
  if not target then return "Over" end
  if math.random() < 0.5 then
    return tostring(P.vote(target))
  end
  return tostring(P.estimate(target, math.random() < 0.5 and "WEREWOLF" or "VILLAGER"))
end

function agent:whisper()
  local target = pick(living_others(self.info, true))
  if target and math.random() < 0.5 then return tostring(P.attack(target)) end
  return "Over"
end

function agent:vote() return pick(living_others(self.info)) end
function agent:divine() return pick(living_others(self.info)) end
function agent:guard() return pick(living_others(self.info)) end
function agent:attack() return pick(living_others(self.info, true)) end

return agent
