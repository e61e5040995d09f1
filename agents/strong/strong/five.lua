-- strong.five: the five-player seer's and possessed's talk and endgame
-- (docs/strategy.md, "Five players"). main.lua calls these only in
-- five-player games (self.small); each returns nil when it has nothing to
-- add, and the general behaviour goes on.
--
-- Why: many agents (the official sample's villagers among them) follow the
-- vote requests they hear, drawing one at random per requester each time
-- the requests change. A request heard early becomes their own declared
-- vote and request, so the first requests of a day tend to carry it. So a
-- claim, its results and the vote request go out together, in one talk.
local P = require "aiwolf.protocol"

local F = {}

-- A vote for t and the request that everyone vote so (two sentences, for
-- P.and_).
function F.voteAndRequest(t)
  return P.vote(t), P.request(P.ANY, P.vote(t))
end
local voteAndRequest = F.voteAndRequest

-- Does another agent claim SEER?
local function rivalSeer(self)
  for _, a in ipairs(self.claimants) do
    if a ~= self.me and self.claims[a] == "SEER" then return true end
  end
  return false
end

-- Is the hidden seer in danger today: a seer claimant called it a
-- werewolf, or two others have declared votes against it?
function F.seerThreatened(self, rival)
  if rival and rivalSeer(self) then return true end
  for _, r in ipairs(self.reports) do
    if r.target == self.me and r.verb == "DIVINED" and r.species == "WEREWOLF" then return true end
  end
  local n = 0
  for _, v in ipairs(self.voters) do
    if v ~= self.me and self.declared[v] == self.me then n = n + 1 end
  end
  return n >= 2
end

-- The seer coming out (or out already, with a new result): the claim,
-- every result not reported yet, and its vote with the request, as one AND.
function F.seerComeOut(self)
  local parts = {}
  if not self.claimed then parts[1] = P.comingout(self.me, "SEER") end
  local results = self.divinations
  for i = self.reported + 1, #results do
    parts[#parts + 1] = P.divined(results[i].target, results[i].result)
  end
  self.reported = #results
  self.claimed = "SEER"
  local t = self:voteTarget()
  if t then
    local v, r = voteAndRequest(t)
    parts[#parts + 1] = v
    parts[#parts + 1] = r
    self.declTarget = t
    self.voteDecl = (self.voteDecl or 0) + 1
    self.requested = true
  end
  return P.and_(table.unpack(parts))
end

-- The seer's vote for a werewolf it found, with the reason and the request
-- in one talk.
function F.seerAccuse(self, t)
  self.requested = true
  return P.because(P.divined(t, "WEREWOLF"), P.and_(voteAndRequest(t)))
end

-- The possessed's day's fake result: a WEREWOLF comes with its vote and
-- request. On day 1 it waits for a rival seer claim (the genuine seer is
-- the one to call a werewolf) until its third talk, saying Skip (not Over:
-- a round of Overs would end the day's talk).
function F.possessedReport(self)
  if self.day == 1 and #self.fake == 0 and (self.talkCalls or 0) < 3 then
    if not rivalSeer(self) then return P.skip() end
  end
  self:makeFake()
  if self.reported >= #self.fake then return nil end
  self.reported = self.reported + 1
  local f = self.fake[self.reported]
  if f.species ~= "WEREWOLF" then return P.divined(f.target, f.species) end
  self.declTarget = f.target
  self.voteDecl = (self.voteDecl or 0) + 1
  return P.and_(P.divined(f.target, "WEREWOLF"), voteAndRequest(f.target))
end

-- The last day (three alive: the werewolf, the possessed and a human):
-- two votes against one decide, if the werewolf and the possessed know
-- each other. The possessed comes out as POSSESSED; a werewolf that hears
-- it comes out as WEREWOLF and votes for the third; the possessed votes
-- for the one that did not claim WEREWOLF. (A human cannot use this: a
-- villager claiming WEREWOLF is voted out by the other two.)
local function lastDay(self)
  return #self.alive == 3 and self.day >= 2
end

function F.possessedReveal(self)
  if not lastDay(self) or self.revealed == self.day then return nil end
  self.revealed = self.day
  return P.comingout(self.me, "POSSESSED")
end

-- The other living agent that claims role on the last day, if one does.
local function claimer(self, role)
  for _, a in ipairs(self.others) do
    if self.claims[a] == role then return a end
  end
  return nil
end

function F.wolfReveal(self)
  if not lastDay(self) or self.revealed == self.day or not claimer(self, "POSSESSED") then return nil end
  self.revealed = self.day
  return P.comingout(self.me, "WEREWOLF")
end

-- The last day's vote of the possessed (werewolf): the one that is not the
-- agent claiming WEREWOLF (POSSESSED); nil when none claims so.
function F.lastVote(self, ally)
  if not lastDay(self) then return nil end
  local a = claimer(self, ally)
  if not a then return nil end
  for _, o in ipairs(self.others) do
    if o ~= a then return o end
  end
  return nil
end

return F
