-- random.lua: legal random play. Votes, divines, guards and attacks a random
-- living agent (never itself; werewolves never pick a fellow werewolf), and
-- talks a random vote or estimate now and then before saying Over.
--
-- It is also the smallest example of keeping work out of the calls: the
-- lists of candidates change only when someone dies, so they are built then
-- and reused; a call that needs one only checks whether any agent's status
-- changed, and update does nothing but keep info.
local P = require "aiwolf.protocol"
local random = math.random

local agent = {}

function agent:getName() return "random" end

-- Rebuilds the candidate lists from info.statusMap, in agent order (a
-- numeric loop, never pairs(): the game must replay exactly from its seed):
--   self.others: the living agents other than oneself;
--   self.humans: those of them that roleMap does not show as werewolves
--     (for a werewolf, the fellows are left out);
--   self.status: each agent's status they were built from.
local function rebuild(self, info)
  local status, roles = info.statusMap, info.roleMap
  local seen, others, humans = {}, {}, {}
  for a = 1, #status do
    seen[a] = status[a]
    if status[a] == "ALIVE" and a ~= info.agent then
      others[#others + 1] = a
      if roles[a] ~= "WEREWOLF" then humans[#humans + 1] = a end
    end
  end
  self.status, self.others, self.humans = seen, others, humans
end

-- Called before every other method.
function agent:update(info) self.info = info end

-- self.others or self.humans (name), rebuilt first if a status changed
-- since they were built (the first time there are none: every status
-- differs from nil). Agents die only at an execution (latestExecutedAgent
-- changes) or in the night (the day changes), so the statuses are looked
-- at only when one of those two changed since the last look.
local function candidates(self, name)
  local info = self.info
  local day, executed = info.day, info.latestExecutedAgent
  if day ~= self.day or executed ~= self.executed or not self.status then
    self.day, self.executed = day, executed
    local status, seen = info.statusMap, self.status or {}
    for a = 1, #status do
      if status[a] ~= seen[a] then
        rebuild(self, info)
        break
      end
    end
  end
  return self[name]
end

-- A uniformly random element of a list, or nil for an empty one.
local function pick(list)
  if #list == 0 then return nil end
  return list[random(#list)]
end

function agent:dayStart() self.talks = 0 end

function agent:talk()
  self.talks = self.talks + 1
  if self.talks > 3 or random() < 0.3 then return "Over" end
  local target = pick(candidates(self, "others"))
  if not target then return "Over" end
  -- P.say gives the text of a one-agent sentence without building it
  -- (tostring(P.vote(target)) is the same text, made through a tree).
  if random() < 0.5 then
    return P.say("VOTE", target)
  end
  return P.say("ESTIMATE", target, random() < 0.5 and "WEREWOLF" or "VILLAGER")
end

function agent:whisper()
  local target = pick(candidates(self, "humans"))
  if target and random() < 0.5 then return P.say("ATTACK", target) end
  return "Over"
end

function agent:vote() return pick(candidates(self, "others")) end
function agent:divine() return pick(candidates(self, "others")) end
function agent:guard() return pick(candidates(self, "others")) end
function agent:attack() return pick(candidates(self, "humans")) end

return agent
