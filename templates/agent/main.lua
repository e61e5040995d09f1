-- {{NAME}}: an AIWolf agent for aiwolf-lua, made by `aiwolf new`.
--
-- The game runs this file once per game, in a fresh sandbox, and calls the
-- methods of the table it returns (docs/agents.md, "The agent API"). This one
-- plays sensibly and stays simple: the seer comes out and reports its
-- divinations; everyone votes for an agent a seer found to be a werewolf,
-- else for one random agent a day, and says whom it votes for.
--
-- (`aiwolf` below: the installed one, docs/install.md, or your build's path)
-- Play it:   aiwolf play main.lua main.lua            (add --seed N to replay a game)
-- Check it:  aiwolf lint main.lua                      (and luacheck ., busted, see README.md)
-- Edit it while 200 games run:  aiwolf play --games 200 --watch main.lua <other agent>

-- The project's helper library: a base agent that keeps the game state
-- (self.info, self.role, self.divinations, self.reports...), and helpers.
local A = require "aiwolf.agent"
-- Sentences of the AIWolf protocol: build them, then tostring() them.
local P = require "aiwolf.protocol"

-- Your agent: it inherits every method of the base agent (A.Agent); define
-- only what you want to change. Keep state in `self`, not in globals (the
-- sandbox starts each game afresh anyway).
---@class {{CLASS}}: aiwolf.Agent
---@field target? integer today's random choice
---@field said? integer the vote declared today
---@field cameOut? boolean
---@field reported? integer
local agent = A.new{name = "{{NAME}}"}

-- Called at the start of each day, after update(info): reset today's state.
function agent:dayStart()
  self.target = nil
  self.said = nil
end

-- Somebody to vote for: a werewolf found by our divinations, or one that a
-- seer claimant reported (not when it is about ourselves).
---@return integer?
function agent:suspect()
  for _, d in ipairs(self.divinations) do
    if d.result == "WEREWOLF" and A.is_alive(self.info, d.target) then return d.target end
  end
  for _, r in ipairs(self.reports) do
    if r.verb == "DIVINED" and r.species == "WEREWOLF" and r.target ~= self.me
       and A.is_alive(self.info, r.target) then
      return r.target
    end
  end
  return nil
end

---@return integer?
function agent:voteTarget()
  -- A werewolf never votes on what the seer says about its fellows.
  local t = self.role ~= "WEREWOLF" and self:suspect()
  if t then return t end
  if not (self.target and A.is_alive(self.info, self.target)) then
    -- A.humans: the living others not known to be werewolves, sorted.
    -- A.pick uses math.random, which the game seeds: games replay by seed.
    self.target = A.pick(A.humans(self.info))
  end
  return self.target
end

-- Each call says one thing: a protocol sentence, or "Over" when done.
function agent:talk()
  if self.role == "SEER" then
    if not self.cameOut then
      self.cameOut = true
      return tostring(P.comingout(self.me, "SEER"))  --> COMINGOUT Agent[01] SEER
    end
    self.reported = self.reported or 0
    if self.reported < #self.divinations then
      self.reported = self.reported + 1
      local d = self.divinations[self.reported]
      return tostring(P.divined(d.target, d.result)) --> DIVINED Agent[04] HUMAN
    end
  end
  local t = self:voteTarget()
  if t and t ~= self.said then
    self.said = t
    return tostring(P.vote(t))                       --> VOTE Agent[05]
  end
  return "Over"
end

-- An agent number (1..N); never yourself or a dead agent.
function agent:vote()
  return self:voteTarget()
end

-- divine, guard, attack and whisper: the base agent's (a random legal
-- target; "Over"). Override them here when you are ready.

return agent
