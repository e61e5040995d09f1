-- {{NAME}}: a role-aware AIWolf agent for aiwolf-lua, made by
-- `aiwolf new --role-aware`.
--
-- The game runs this file once per game, in a fresh sandbox, and calls the
-- methods of the table it returns (docs/agents.md, "The agent API"). Each
-- method below asks the table of the agent's role (SEER, MEDIUM, BODYGUARD,
-- WEREWOLF, POSSESSED, VILLAGER) first, and falls back to the shared
-- behaviour: edit one role at a time.
--
-- (`aiwolf` below: the installed one, docs/install.md, or your build's path)
-- Play one role:  aiwolf play --deal 1=SEER main.lua main.lua   (seat 1 is the seer)
-- Check it:       aiwolf lint main.lua                           (and luacheck ., busted)
-- Edit it while games run:  aiwolf play --games 200 --watch main.lua <other agent>

local A = require "aiwolf.agent"     -- base agent (keeps the game state) and helpers
local P = require "aiwolf.protocol"  -- protocol sentences: build, then tostring()

---@class {{CLASS}}: aiwolf.Agent
---@field target? integer today's vote target
---@field said? integer the vote declared today
---@field cameOut? boolean
---@field reported? integer how many of our results we reported
---@field proposed? integer werewolf: the attack proposed tonight
---@field fakeDay? integer possessed: the day of the last made-up result
local agent = A.new{name = "{{NAME}}"}

---@type table<string, table<string, fun(self: {{CLASS}}): any>>
local roles = {SEER = {}, MEDIUM = {}, BODYGUARD = {}, WEREWOLF = {}, POSSESSED = {}, VILLAGER = {}}

-- ---------------------------------------------------------------------------
-- Shared behaviour

function agent:dayStart()
  self.target, self.said = nil, nil
end

-- A werewolf reported by a seer claimant (or found by ourselves), alive.
---@return integer?
function agent:suspect()
  for _, d in ipairs(self.divinations) do
    if d.result == "WEREWOLF" and A.is_alive(self.info, d.target) then return d.target end
  end
  for _, r in ipairs(self.reports) do
    if r.species == "WEREWOLF" and r.target ~= self.me and A.is_alive(self.info, r.target) then
      return r.target
    end
  end
  return nil
end

---@return integer?
function agent:voteTarget()
  local t = self.role ~= "WEREWOLF" and self:suspect()
  if t then return t end
  if not (self.target and A.is_alive(self.info, self.target)) then
    self.target = A.pick(A.humans(self.info)) -- for a werewolf: humans only
  end
  return self.target
end

-- Says the vote once (again when it changes), then "Over".
---@return string
function agent:declareVote()
  local t = self:voteTarget()
  if t and t ~= self.said then
    self.said = t
    return tostring(P.vote(t))
  end
  return "Over"
end

-- Comes out as `role` once, then reports results[reported+1...] one a talk.
---@param role aiwolf.Role
---@param results aiwolf.Judge[]
---@param build fun(target: integer, species: aiwolf.Species): aiwolf.Sentence
---@return string?
function agent:comeOutAndReport(role, results, build)
  if not self.cameOut then
    self.cameOut = true
    return tostring(P.comingout(self.me, role))
  end
  self.reported = self.reported or 0
  if self.reported < #results then
    self.reported = self.reported + 1
    local r = results[self.reported]
    return tostring(build(r.target, r.result))
  end
  return nil
end

-- ---------------------------------------------------------------------------
-- SEER: comes out at once, reports every divination, divines the undivined.

function roles.SEER.talk(self)
  return self:comeOutAndReport("SEER", self.divinations, P.divined) or self:declareVote()
end

function roles.SEER.divine(self)
  local fresh = A.filter(A.others(self.info), function(a) return self.divined[a] == nil end)
  return A.pick(fresh) or A.pick(A.others(self.info))
end

-- MEDIUM: comes out once it identified a werewolf, then reports.

function roles.MEDIUM.talk(self)
  local found = false
  for _, r in ipairs(self.identifications) do
    if r.result == "WEREWOLF" then found = true end
  end
  if found or self.cameOut then
    local s = self:comeOutAndReport("MEDIUM", self.identifications, P.identified)
    if s then return s end
  end
  return self:declareVote()
end

-- BODYGUARD: guards the first seer claimant still alive, else someone at random.

function roles.BODYGUARD.guard(self)
  for _, a in ipairs(self:claimantsOf("SEER")) do
    if a ~= self.me and A.is_alive(self.info, a) then return a end
  end
  return A.pick(A.others(self.info))
end

-- WEREWOLF: votes for humans, proposes the attack to its fellows, attacks
-- seer claimants first.

function roles.WEREWOLF.attack(self)
  for _, a in ipairs(self:claimantsOf("SEER")) do
    if A.is_alive(self.info, a) and self.info.roleMap[a] ~= "WEREWOLF" then return a end
  end
  return self:voteTarget()
end

function roles.WEREWOLF.whisper(self)
  local t = roles.WEREWOLF.attack(self)
  if t and t ~= self.proposed then
    self.proposed = t
    return tostring(P.attack(t)) -- whispers only: never ATTACK in public talk
  end
  return "Over"
end

-- POSSESSED: claims to be the seer and calls random agents human.

function roles.POSSESSED.talk(self)
  if not self.cameOut then
    self.cameOut = true
    return tostring(P.comingout(self.me, "SEER"))
  end
  if self.fakeDay ~= self.day then
    self.fakeDay = self.day
    local t = A.pick(A.others(self.info))
    if t then return tostring(P.divined(t, "HUMAN")) end
  end
  return self:declareVote()
end

-- VILLAGER: the shared behaviour (votes for a reported werewolf, else at random).

-- ---------------------------------------------------------------------------
-- The methods the game calls: the role's version if there is one, else the
-- shared one (talk, vote) or the base agent's (a random legal target).

---@param method string
---@return any
function agent:byRole(method)
  local f = (roles[self.role] or roles.VILLAGER)[method]
  if f then return f(self) end
  if method == "talk" then return self:declareVote() end
  if method == "vote" then return self:voteTarget() end
  return A.Agent[method](self)
end

function agent:talk() return self:byRole("talk") end
function agent:whisper() return self:byRole("whisper") end
function agent:vote() return self:byRole("vote") end
function agent:divine() return self:byRole("divine") end
function agent:guard() return self:byRole("guard") end
function agent:attack() return self:byRole("attack") end

return agent
