-- random.lua: legal random play. Votes, divines, guards and attacks a random
-- living agent (never itself; werewolves never pick a fellow werewolf), and
-- talks a random vote or estimate now and then before saying Over.
--
-- It is also the smallest example of doing only what is new since the last
-- call: the lists of candidates change only when someone dies, so they are
-- built once and the dead taken out of them as the game names them, and
-- update does nothing but keep info.
local P = require "aiwolf.protocol"
local random = math.random

local agent = {}

function agent:getName() return "random" end

-- Builds the candidate lists from info.statusMap, in agent order (a
-- numeric loop, never pairs(): the game must replay exactly from its seed):
--   self.others: the living agents other than oneself;
--   self.humans: those of them that roleMap does not show as werewolves
--     (for a werewolf, the fellows are left out);
--   self.alive[a]: true for each agent in self.others.
local function build(self, info)
  local status, roles = info.statusMap, info.roleMap
  local alive, others, humans = {}, {}, {}
  for a = 1, #status do
    if status[a] == "ALIVE" and a ~= info.agent then
      alive[a] = true
      others[#others + 1] = a
      if roles[a] ~= "WEREWOLF" then humans[#humans + 1] = a end
    end
  end
  self.alive, self.others, self.humans = alive, others, humans
end

-- Takes agent a out of a list in agent order (if there), keeping the
-- others' order.
local function drop(list, a)
  local n = #list
  for i = 1, n do
    local b = list[i]
    if b >= a then
      if b == a then
        for j = i, n - 1 do list[j] = list[j + 1] end
        list[n] = nil
      end
      return
    end
  end
end

-- Agent a (or nil) died: out of the lists, if still there.
local function died(self, a)
  if a and self.alive[a] then
    self.alive[a] = nil
    drop(self.others, a)
    drop(self.humans, a)
  end
end

-- Called before every other method.
function agent:update(info) self.info = info end

-- self.others or self.humans (name), brought up to date first (the first
-- time: built). Agents die only at an execution, named at once by
-- latestExecutedAgent (and the next day by executedAgent), and in the
-- night, named the next day by lastDeadAgentList; so the news is looked at
-- only when the day or latestExecutedAgent changed since the last look,
-- and only those agents are taken out (making new lists at every death
-- would put every entry into a new table again: each new key costs a few
-- hundred machine instructions, a tenth of a fifteen-player game's).
local function candidates(self, name)
  local info = self.info
  local day, executed = info.day, info.latestExecutedAgent
  if day ~= self.day or executed ~= self.executed then
    if not self.alive then
      build(self, info)
    else
      died(self, executed)
      if day ~= self.day then
        died(self, info.executedAgent)
        local dead = info.lastDeadAgentList
        for i = 1, #dead do died(self, dead[i]) end
      end
    end
    self.day, self.executed = day, executed
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
