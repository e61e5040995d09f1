-- agents/strong: a reference agent written for strength (docs/strategy.md).
-- Every role decides from strong.model, an explicit model of who can be a
-- werewolf, the possessed or a genuine seer/medium/bodyguard, consistent
-- with the claims, results, deaths and votes heard so far:
--   village side  votes for the likeliest werewolf, joining the declared
--                 votes when candidates are close, so that the village does
--                 not split, and asks everyone to vote so (REQUEST, which
--                 the official sample's villagers follow); the seer comes
--                 out at once (5 players: on day 2, unless it found the
--                 werewolf), reports every result and divines the
--                 likeliest werewolf it has not divined; the medium comes out with its first result; the
--                 bodyguard guards the likeliest genuine seer (then medium);
--   werewolves    agree on one attack target by whisper (the village's
--                 likeliest genuine seer, then medium, then its most
--                 trusted agent; never the possessed), vote for the human
--                 the village already suspects (the model run on the public
--                 record), fake a seer claim when found out;
--   possessed     claims seer, calls the likeliest genuine seer (or a
--                 likely human) a werewolf and votes for likely humans.
-- Five players (strong.five): claims, results, votes and requests go out in
-- one talk, and on the last day the possessed and the werewolf come out to
-- each other and vote together.
local A = require "aiwolf.agent"
local P = require "aiwolf.protocol"
local M = require "strong.model"
local F = require "strong.five"

local S = A.new{name = "strong"}

local VILLAGE = {VILLAGER = true, SEER = true, MEDIUM = true, BODYGUARD = true}
local MAX_DECL = 3

-- Choices measured against alternatives (docs/strategy.md).
S.tune = {
  wolfClaims5 = false,  -- 5 players: the werewolf fakes a seer claim on day 1
  wolfClaims15 = false, -- 15 players: one werewolf fakes a seer claim on day 1
  possVote5 = 0.35,     -- village vote: the weight of "the possessed", 5 players
  possVote15 = 0.5,     -- the same, 15 players
  seerDay15 = 1,        -- 15 players: the seer comes out by this day (at once if it found a werewolf; 3 tried, below)
  requestVotes = true,  -- a declared vote also asks everyone to vote so (AND (VOTE x) (REQUEST ANY (VOTE x)))
  possWait5 = nil,      -- 5 players: the possessed claims seer when another claims it, else on this day (nil: at once; 2 tried, below)
  seerWait5 = 2,        -- 5 players: the seer comes out by this day, at once if it found a werewolf
  seerRival5 = false,   -- 5 players: the hidden seer also comes out when another claims seer (tried, below)
  seerEarly5 = true,    -- 5 players: the hidden seer declares its vote from its first talk
  seerThreat5 = true,   -- 5 players: the hidden seer comes out when called a werewolf or two declare against it
  bundle5 = true,       -- 5 players: claim, results, vote and request in one talk (seer, possessed; strong.five)
  lastDay5 = true,      -- 5 players, three alive: the possessed and the werewolf come out to each other (strong.five)
  possWait15 = nil,     -- 15 players: the possessed claims seer when another claims it, else on this day (nil: at once; 2 tried, below)
  possRival15 = true,   -- 15 players: the possessed's fake WEREWOLF goes to the likeliest genuine seer (false: to a non-claimant; tried, below)
}

function S:initialize(info, setting)
  A.Agent.initialize(self, info, setting)
  self.claimed = nil       -- the role this agent came out as
  self.reported = 0
  self.fake = {}           -- fake results {target, species} (possessed, werewolf)
  self.fakeDone = {}
  self.lastAttack = nil
  self.guardedGuess = {}
  self.small = (#info.statusMap <= 5)
end

function S:dayStart()
  self.voteDecl, self.declTarget, self.requested = 0, nil, false
  self.talkCalls = 0
  self.proposed = nil
  if self.role == "WEREWOLF" and self.lastAttack and self.day >= 2 then
    if #(self.info.lastDeadAgentList or {}) == 0 then self.guardedGuess[self.lastAttack] = true end
  end
  self.lastAttack = nil
  self._fakeDay = nil
end

-- The model, worked out once per change of the facts (self.version).
function S:model(public)
  local key = public and "_pub" or "_priv"
  local kept = self[key]
  if kept and kept.version == self.version then return kept.m end
  local m = M.solve(M.facts(self, public))
  self[key] = {version = self.version, m = m}
  return m
end

-- Today's declared votes of agents the model does not suspect much, per target.
function S:declaredFor(m)
  local count = {}
  local voters = A.sorted_keys(self.declared)
  for i = 1, #voters do
    local v = voters[i]
    local t = self.declared[v]
    if v ~= self.me and (not m or m.pw[v] < 0.5) then count[t] = (count[t] or 0) + 1 end
  end
  return count
end

-- Village side: the vote. The likeliest werewolf; in 5-player games the
-- possessed counts a little too (a seat that votes with the werewolf on the
-- last day). Candidates within a margin of the best are ranked by today's
-- declared votes so that the village votes together.
function S:villageTarget()
  local m = self:model(false)
  local score = {}
  for _, a in ipairs(self.others) do
    local s = m.pw[a]
    s = s + (self.small and S.tune.possVote5 or S.tune.possVote15) * m.pposs[a]
      - 0.3 * (m.pgen.SEER[a] + m.pgen.MEDIUM[a])
    if self.divined[a] == "WEREWOLF" or self.identified[a] == "WEREWOLF" then s = s + 10 end
    score[a] = s
  end
  local best, top = A.best(self.others, score)
  if not top then return nil end
  local decl = self:declaredFor(m)
  local near = A.filter(self.others, function(a) return score[a] >= top - 0.08 end)
  local cur = self.declTarget
  if cur and score[cur] and score[cur] >= top - 0.08 and (decl[cur] or 0) >= 0 then
    -- keep the declared target unless the crowd clearly gathers elsewhere
    local bc = decl[cur] or 0
    local alt, an = A.best(near, function(a) return (decl[a] or 0) + score[a] end)
    if alt[1] and alt[1] ~= cur and an - score[alt[1]] >= bc + 2 then return alt[1] end
    return cur
  end
  local pick = A.best(near, function(a) return (decl[a] or 0) + score[a] end)
  return A.pick(pick) or A.pick(best)
end

-- Werewolf side by day: vote with the village against a human it suspects;
-- join the village against a fellow it has all but decided on.
function S:wolfTarget()
  if self.small and S.tune.lastDay5 then
    local t = F.lastVote(self, "POSSESSED")
    if t then return t end
  end
  local pub = self:model(true)
  local roleMap = self.info.roleMap
  local decl = self:declaredFor(nil)
  local half = #self.alive // 2
  local score = {}
  for _, a in ipairs(self.others) do
    if roleMap[a] == "WEREWOLF" then
      if (decl[a] or 0) >= half then score[a] = 100 + decl[a] end
    else
      local s = pub.pw[a] + 0.05 * (decl[a] or 0)
      -- a claimant whose results are false is the possessed: an ally
      if self:isFakeClaimant(a) then s = s - 1 end
      score[a] = s
    end
  end
  return A.best(self.others, score)[1]
end

-- Werewolf: is a a claimant whose results are false (the possessed, as
-- the werewolves see it: a fellow's claim is not asked about)?
function S:isFakeClaimant(a)
  local roleMap = self.info.roleMap
  for _, r in ipairs(self.reports) do
    if r.who == a then
      local truth = roleMap[r.target] == "WEREWOLF" and "WEREWOLF" or "HUMAN"
      if truth ~= r.species then return true end
    end
  end
  return false
end

-- Possessed: vote for a likely human, the likeliest genuine seer first.
function S:possessedTarget()
  if self.small and S.tune.lastDay5 then
    local t = F.lastVote(self, "WEREWOLF")
    if t then return t end
  end
  local m = self:model(false)
  local score = {}
  for _, a in ipairs(self.others) do
    score[a] = (1 - m.pw[a]) + 0.6 * m.pgen.SEER[a] + 0.3 * m.pgen.MEDIUM[a]
    for _, f in ipairs(self.fake) do
      if f.target == a and f.species == "WEREWOLF" then score[a] = score[a] + 0.5 end
    end
  end
  return A.best(self.others, score)[1]
end

function S:voteTarget()
  if VILLAGE[self.role] then return self:villageTarget() end
  if self.role == "WEREWOLF" then return self:wolfTarget() end
  return self:possessedTarget()
end

-- Fake results (possessed, or a werewolf that came out as seer): the
-- likeliest genuine seer claimant as a werewolf, else a likely human.
function S:makeFake()
  if self._fakeDay == self.day then return end
  self._fakeDay = self.day
  local m = self:model(self.role == "WEREWOLF")
  local wolves = self.role == "WEREWOLF" and self.info.roleMap or {}
  local best, bs = nil, nil
  local k = (self.setting.roleNumMap or {}).WEREWOLF or 1
  local called = 0
  for _, f in ipairs(self.fake) do if f.species == "WEREWOLF" then called = called + 1 end end
  for _, a in ipairs(self.others) do
    if not self.fakeDone[a] and wolves[a] ~= "WEREWOLF" then
      local s = m.pgen.SEER[a] * 2 + m.pgen.MEDIUM[a] + (1 - m.pw[a]) * 0.5 + math.random() * 0.01
      if not self.small and self.role == "POSSESSED" and not S.tune.possRival15 then s = self:fakeScore15(m, a) end
      if bs == nil or s > bs then best, bs = a, s end
    end
  end
  if not best then return end
  local species = "WEREWOLF"
  if called >= k or (not self.small and m.pgen.SEER[best] < 0.2 and called > 0 and math.random() < 0.5) then
    species = "HUMAN"
    -- a human result: for a werewolf, a fellow (it clears it); else the above
    for _, a in ipairs(self.others) do
      if wolves[a] == "WEREWOLF" and not self.fakeDone[a] then best = a break end
    end
  end
  self.fakeDone[best] = true
  self.fake[#self.fake + 1] = {target = best, species = species}
end

-- 15 players, S.tune.possRival15 false: the possessed's fake result goes
-- to a likely human that claims no role, not to a rival seer (whose
-- counter-accusation marks the possessed).
function S:fakeScore15(m, a)
  if self.claims[a] then return -1 + math.random() * 0.01 end
  return (1 - m.pw[a]) * 0.5 + math.random() * 0.01
end

-- Talk -------------------------------------------------------------------------

function S:comingOut()
  local r = self.role
  if self.claimed then return nil end
  if r == "POSSESSED" then
    if not self.small and S.tune.possWait15 then return self:possessedClaim15() end
    if not self.small or not S.tune.possWait5 or self.day >= S.tune.possWait5 then return "SEER" end
    for _, a in ipairs(self.claimants) do -- a seer claim to counter
      if a ~= self.me and self.claims[a] == "SEER" then return "SEER" end
    end
    return nil
  end
  if r == "SEER" then
    -- 15 players: a seer out on day 1 with nothing found is the rival
    -- claimants' first target (called a werewolf, voted out); wait for a
    -- werewolf found, or for day S.tune.seerDay15
    if self.day >= (self.small and S.tune.seerWait5 or S.tune.seerDay15) then return "SEER" end
    if self.small and S.tune.seerThreat5 and F.seerThreatened(self, S.tune.seerRival5) then return "SEER" end
    for _, d in ipairs(self.divinations) do
      if d.result == "WEREWOLF" then return "SEER" end
    end
    return nil
  end
  if r == "MEDIUM" then
    if #self.identifications > 0 then return "MEDIUM" end
    for _, a in ipairs(self.claimants) do
      if a ~= self.me and self.claims[a] == "MEDIUM" then return "MEDIUM" end
    end
  end
  if r == "WEREWOLF" and self.day >= 1 then
    if self.small and S.tune.wolfClaims5 then return "SEER" end
    if not self.small and S.tune.wolfClaims15 and self:leadWolf() then return "SEER" end
    -- found out by a seer claimant: counter with a seer claim of its own
    for _, rep in ipairs(self.reports) do
      if rep.target == self.me and rep.species == "WEREWOLF" and rep.verb == "DIVINED" then return "SEER" end
    end
  end
  return nil
end

-- 15 players, S.tune.possWait15: the possessed claims seer once another
-- agent has, else on day possWait15.
function S:possessedClaim15()
  if self.day >= S.tune.possWait15 then return "SEER" end
  for _, a in ipairs(self.claimants) do
    if a ~= self.me and self.claims[a] == "SEER" then return "SEER" end
  end
  return nil
end

-- The werewolf with the lowest number among the living ones.
function S:leadWolf()
  for _, a in ipairs(self.alive) do
    if self.info.roleMap[a] == "WEREWOLF" then return a == self.me end
  end
  return false
end

local function nop() return nil end

function S:nextTalk()
  if self.small and S.tune.lastDay5 then
    local s = (self.role == "POSSESSED" and F.possessedReveal or self.role == "WEREWOLF" and F.wolfReveal or nop)(self)
    if s then return s end
  end
  local co = self:comingOut()
  if co == "SEER" and self.role == "SEER" and self.small and S.tune.bundle5 then return F.seerComeOut(self) end
  if co then
    self.claimed = co
    return P.comingout(self.me, co)
  end
  if self.claimed then
    if self.role == "SEER" and self.small and S.tune.bundle5 and self.reported < #self.divinations then
      return F.seerComeOut(self)
    elseif self.role == "SEER" or self.role == "MEDIUM" then
      local results = self.role == "SEER" and self.divinations or self.identifications
      if self.reported < #results then
        self.reported = self.reported + 1
        local r = results[self.reported]
        local build = self.role == "SEER" and P.divined or P.identified
        return build(r.target, r.result)
      end
    elseif self.claimed == "SEER" and self.role == "POSSESSED" and self.small and S.tune.bundle5 then
      local s = F.possessedReport(self)
      if s then return s end
    elseif self.claimed == "SEER" then -- possessed, or a werewolf's counter-claim
      if self.day >= 1 then self:makeFake() end
      if self.reported < #self.fake then
        self.reported = self.reported + 1
        local f = self.fake[self.reported]
        return P.divined(f.target, f.species)
      end
    end
  end
  -- Village side: no vote declared in the first turns of a day, before the
  -- claims and results are in (a vote declared on nothing leads the crowd).
  if VILLAGE[self.role] and self.talkCalls < 3 and not self:hasLead()
     and not (self.small and self.role == "SEER" and S.tune.seerEarly5) then return nil end
  local t = self:voteTarget()
  if t and t ~= self.declTarget and (self.voteDecl or 0) < MAX_DECL then
    self.declTarget = t
    self.voteDecl = (self.voteDecl or 0) + 1
    if self.role == "SEER" and self.divined[t] == "WEREWOLF" then
      if self.small and S.tune.bundle5 then return F.seerAccuse(self, t) end
      return P.because(P.divined(t, "WEREWOLF"), P.vote(t))
    end
    if S.tune.requestVotes then return P.and_(F.voteAndRequest(t)) end
    return P.vote(t)
  end
  if t and not self.requested and VILLAGE[self.role]
     and (self.divined[t] == "WEREWOLF" or self.identified[t] == "WEREWOLF") then
    self.requested = true
    return P.request(P.ANY, P.vote(t))
  end
  return nil
end

-- Does the model point at someone (a werewolf or the possessed) clearly?
function S:hasLead()
  local m = self:model(false)
  for _, a in ipairs(self.others) do
    if m.pw[a] + m.pposs[a] > 0.6 then return true end
  end
  return false
end

function S:talk()
  self.talkCalls = self.talkCalls + 1
  local s = self:nextTalk()
  if s == nil then return "Over" end
  return tostring(s)
end

-- Werewolves -------------------------------------------------------------------

-- Attack: the village's likeliest genuine seer, then medium, then
-- bodyguard claimant; else the agent the village trusts most. Never the
-- possessed (a claimant whose results are false); a target whose attack
-- failed (guarded) is put last.
function S:attackScores()
  local pub = self:model(true)
  local score = {}
  for _, a in ipairs(A.humans(self.info)) do
    local s = 0
    local c = self.claims[a]
    if not self:isFakeClaimant(a) then
      s = s + 3 * pub.pgen.SEER[a] + 2 * pub.pgen.MEDIUM[a] + 1.5 * pub.pgen.BODYGUARD[a]
      if c == "SEER" then s = s + 1 elseif c == "MEDIUM" then s = s + 0.6 elseif c == "BODYGUARD" then s = s + 0.5 end
    else
      s = s - 3
    end
    s = s + (1 - pub.pw[a]) * 0.5
    if self.guardedGuess[a] then s = s - 2 end
    score[a] = s
  end
  return score
end

function S:attackTarget()
  local score = self:attackScores()
  local best, top = A.best(A.humans(self.info), score)
  if not top then return nil end
  for _, p in ipairs(self.attackProposals) do
    if score[p.target] and score[p.target] >= top - 0.3 then return p.target, p end
  end
  return best[1], nil
end

function S:whisper()
  if self.day < 1 then return "Over" end
  if self.proposed and A.is_alive(self.info, self.proposed) then return "Over" end
  local t, p = self:attackTarget()
  self.proposed = t
  if t == nil then return "Over" end
  if p and p.who ~= self.me then return tostring(P.agree("WHISPER", self.day, p.idx)) end
  return tostring(P.attack(t))
end

-- Actions ------------------------------------------------------------------------

function S:vote()
  return self:voteTarget() or A.pick(self.others)
end

function S:attack()
  local t = self:attackTarget()
  self.lastAttack = t
  return t
end

function S:divine()
  local m = self:model(false)
  local score = {}
  for _, a in ipairs(self.others) do
    if self.divined[a] == nil then
      -- the likeliest werewolf not yet sure; a claimant already shown a
      -- liar needs no divination
      local p = m.pw[a]
      score[a] = p < 0.97 and p + 0.3 * (1 - m.pposs[a]) * p or -1
    end
  end
  return A.best(self.others, score)[1] or A.pick(self.others)
end

function S:guard()
  local m = self:model(false)
  local score = {}
  for _, a in ipairs(self.others) do
    score[a] = 3 * m.pgen.SEER[a] + 2 * m.pgen.MEDIUM[a] - 2 * m.pw[a] - m.pposs[a]
  end
  return A.best(self.others, score)[1]
end

return S
