-- tutorial.lua: the worked example of docs/agents.md. The seer comes out and
-- reports its divinations; everyone else votes for an agent someone found to
-- be a werewolf, or else for one agent chosen at random for the day, and
-- says so once; divine, guard and attack are aiwolf.agent's random defaults.
local A = require "aiwolf.agent"
local P = require "aiwolf.protocol"

local agent = A.new{name = "tutorial"}

function agent:dayStart()
  self.target = nil -- today's random choice, made when first needed
  self.said = nil   -- the vote declared today
end

-- A living agent that a divination says is a werewolf: our own first, then
-- any DIVINED heard in talk (not about ourselves: we know better).
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

function agent:voteTarget()
  local t = self.role ~= "WEREWOLF" and self:suspect()
  if t then return t end
  if not (self.target and A.is_alive(self.info, self.target)) then
    self.target = A.pick(A.humans(self.info)) -- for a werewolf, humans only
  end
  return self.target
end

function agent:talk()
  if self.role == "SEER" then
    if not self.cameOut then
      self.cameOut = true
      return tostring(P.comingout(self.me, "SEER"))
    end
    self.reported = self.reported or 0
    if self.reported < #self.divinations then
      self.reported = self.reported + 1
      local d = self.divinations[self.reported]
      return tostring(P.divined(d.target, d.result))
    end
  end
  local t = self:voteTarget()
  if t and t ~= self.said then
    self.said = t
    return tostring(P.vote(t))
  end
  return "Over"
end

function agent:vote()
  return self:voteTarget()
end

return agent
