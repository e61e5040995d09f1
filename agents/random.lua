-- random.lua: legal random play. Votes, divines, guards and attacks a random
-- living agent (never itself; werewolves never pick a fellow werewolf), and
-- talks a random vote or estimate now and then before saying Over.
--
-- It is also the smallest example of keeping work out of the calls: the
-- lists of candidates change only when someone dies, so they are built once
-- and the dead taken out of them; a call that needs one checks the statuses
-- only when a death can have happened, and update does nothing but keep
-- info.
local P = require "aiwolf.protocol"
local random = math.random

local agent = {}

function agent:getName() return "random" end

-- Builds the candidate lists from info.statusMap, in agent order (a
-- numeric loop, never pairs(): the game must replay exactly from its seed):
--   self.others: the living agents other than oneself;
--   self.humans: those of them that roleMap does not show as werewolves
--     (for a werewolf, the fellows are left out);
--   self.status: each agent's status they were built from.
local function build(self, info)
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

-- Takes agent a out of a list (if there), keeping the others' order.
local function drop(list, a)
  local n = #list
  for i = 1, n do
    if list[i] == a then
      for j = i, n - 1 do list[j] = list[j + 1] end
      list[n] = nil
      return
    end
  end
end

-- Called before every other method.
function agent:update(info) self.info = info end

-- self.others or self.humans (name), brought up to date first if a status
-- changed since the last look (the first time there are none: they are
-- built). Agents die only at an execution (latestExecutedAgent changes) or
-- in the night (the day changes), so the statuses are looked at only when
-- one of those two changed since the last look. A death takes the agent
-- out of the lists already made: making new lists would put every entry
-- into a new table again (each new key costs a few hundred machine
-- instructions: new lists at every death were a tenth of a fifteen-player
-- game's instructions); any other change (none happens in a game) builds
-- them again.
local function candidates(self, name)
  local info = self.info
  local day, executed = info.day, info.latestExecutedAgent
  if not self.status then
    self.day, self.executed = day, executed
    build(self, info)
  elseif day ~= self.day or executed ~= self.executed then
    self.day, self.executed = day, executed
    local status, seen = info.statusMap, self.status
    for a = 1, #status do
      local now = status[a]
      if now ~= seen[a] then
        if seen[a] ~= "ALIVE" or now == nil then
          build(self, info)
          break
        end
        seen[a] = now
        drop(self.others, a)
        drop(self.humans, a)
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
