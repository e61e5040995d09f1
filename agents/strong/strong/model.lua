-- strong.model: who can be what. An explicit model of the werewolf teams,
-- used by every role of agents/strong (docs/strategy.md).
--
-- A hypothesis is a set W of werewolves (a bit mask over the agents). Every
-- set of the right size that agrees with what the viewer knows for certain
-- is enumerated (15 players, 3 werewolves: at most C(14,3) = 364 sets), and
-- weighted by how likely the public record is under it:
--   * claims and results: a seer/medium/bodyguard claimant outside W is
--     either the genuine holder of the role (then its results must agree
--     with W: DIVINED x WEREWOLF iff x in W), or the possessed (at most one
--     agent), or an unexplained liar (a small weight each); a claimant in W
--     is a werewolf's fake claim; the genuine seer staying silent costs a
--     little; a possessed calling a real werewolf a werewolf is unlikely; a
--     claimant the werewolves killed is rarely the possessed;
--   * votes: werewolves rarely vote for a fellow, humans vote for
--     werewolves a little more often than chance;
--   * the game is still going: at least one werewolf alive, fewer living
--     werewolves than living humans.
-- Summing the weights gives, for every agent, the probability that it is a
-- werewolf (pw), the possessed (pposs), and the genuine seer / medium /
-- bodyguard (pgen[role]). The werewolves run the same model on the public
-- record only (what the village can know) to see whom the village trusts.
-- The sums are kept in a fixed order (agents by number): the game replays
-- exactly from its seed.
local M = {}

-- Weights (relative likelihoods; tuned by games against sample.lua and
-- random.lua, docs/strategy.md).
M.W = {
  wolfClaim = 0.35,      -- a werewolf making a fake claim
  possSilent = 0.5,      -- the possessed not claiming any role
  possClaim = 1.0,       -- the possessed claiming a role
  possKilled = 0.15,     -- the possessed among the agents the werewolves killed
  possHitsWolf = 0.3,    -- the possessed calling an actual werewolf WEREWOLF
  possHitsWolf5 = 1.0,   -- the same, 5 players (the official possessed calls the first other seer claimant one)
  silent = {SEER = 0.15, MEDIUM = 0.5, BODYGUARD = 1.0}, -- the genuine holder not claiming
  liar = 0.02,           -- a claimant left unexplained (a lying villager)
  voteWolfWolf = 0.45,   -- a werewolf voting for a fellow
  voteHumanWolf = 1.25,  -- a human voting for a werewolf (vs. for a human: 1)
  voteWolfHuman = 1.05,  -- a werewolf voting for a human
  -- 15 players: the possessed (a seer claimant) calling the genuine seer
  -- a werewolf (the official sample's possessed counter-claims and does so
  -- at once; in 2000 of its games with strong, a WEREWOLF of one seer
  -- claimant on another was the possessed's on the genuine seer 1.7 times
  -- as often as the genuine seer's on a werewolf: docs/strategy.md)
  possCallsSeer15 = 3,
}

local ROLES = {"SEER", "MEDIUM", "BODYGUARD"}
local VERB = {SEER = "DIVINED", MEDIUM = "IDENTIFIED"}

-- M.facts(self, public): the inputs of the model from an aiwolf.agent
-- agent's state. public: use only what everybody knows (the werewolves'
-- view of the village), not the viewer's own role and results.
function M.facts(self, public)
  local info, setting = self.info, self.setting
  local n = #info.statusMap
  local me, role = self.me, self.role
  local rn = setting.roleNumMap or {}
  local f = {n = n, k = rn.WEREWOLF or 1, roleNum = rn, alive = {}, aliveMask = 0,
    human = {}, wolf = {}, claimants = {}, votes = {}, killed = self.killed,
    mine = nil}
  -- The votes so far, one entry per (voter, target) with its count.
  local pair = {}
  for _, v in ipairs(self.votes) do
    local key = v.agent * 64 + v.target
    local e = pair[key]
    if e then e.count = e.count + 1
    else
      e = {agent = v.agent, target = v.target, count = 1}
      pair[key] = e
      f.votes[#f.votes + 1] = e
    end
  end
  for a = 1, n do
    if info.statusMap[a] == "ALIVE" then f.alive[a] = true; f.aliveMask = f.aliveMask | (1 << a) end
    if self.killed[a] then f.human[a] = true end
  end
  if not public then
    if role ~= "WEREWOLF" then f.human[me] = true end
    if role == "SEER" or role == "MEDIUM" or role == "BODYGUARD" then f.mine = role end
    if role == "POSSESSED" then f.possMe = true end -- no other agent is the possessed
    for t, sp in pairs(self.divined) do if sp == "WEREWOLF" then f.wolf[t] = true else f.human[t] = true end end
    for t, sp in pairs(self.identified) do if sp == "WEREWOLF" then f.wolf[t] = true else f.human[t] = true end end
    if role == "WEREWOLF" then -- the werewolves know each other
      for a = 1, n do
        if info.roleMap[a] == "WEREWOLF" then f.wolf[a] = true else f.human[a] = true end
      end
    end
  end
  -- Claimants: the latest claim, or a seer/medium by its reports alone.
  local claims, byWho = self.claims, {}
  for _, r in ipairs(self.reports) do
    if r.target ~= r.who then
      local c = byWho[r.who]
      if not c then c = {wolfMask = 0, humanMask = 0, verbs = {}, hits = 0}; byWho[r.who] = c end
      c.verbs[r.verb] = true
      c[#c + 1] = r
    end
  end
  for a = 1, n do
    local c = claims[a]
    local rep = byWho[a]
    if not c and rep then c = rep.verbs.DIVINED and "SEER" or "MEDIUM" end
    if (c == "SEER" or c == "MEDIUM" or c == "BODYGUARD") and not (a == me and not public) then
      local e = {who = a, role = c, wolfMask = 0, humanMask = 0, killed = self.killed[a] ~= nil}
      if rep then
        for i = 1, #rep do
          local r = rep[i]
          if r.verb == VERB[c] then
            if r.species == "WEREWOLF" then e.wolfMask = e.wolfMask | (1 << r.target)
            else e.humanMask = e.humanMask | (1 << r.target) end
          end
        end
      end
      f.claimants[#f.claimants + 1] = e
    end
  end
  return f
end

local function popcount(x)
  local c = 0
  while x ~= 0 do x = x & (x - 1); c = c + 1 end
  return c
end

-- The weight of the claims under W, summed over who the possessed and the
-- genuine holders are; adds w * (each option's weight) into the marginals.
local function claimWeight(f, W, w, acc)
  local cl = f.claimants
  local nc = #cl
  local P = M.W
  local human = {}      -- claimants outside W
  local base = 1
  for i = 1, nc do
    local c = cl[i]
    if (W >> c.who) & 1 == 1 then base = base * P.wolfClaim else human[#human + 1] = c end
  end
  local total = 0
  local nh = #human
  -- p = 0: the possessed claims nothing; p = i: human[i] is the possessed.
  for p = 0, f.possMe and 0 or nh do
    local pw = p == 0 and (f.possMe and 1 or P.possSilent) or P.possClaim
    if p > 0 then
      local c = human[p]
      if c.killed then pw = pw * P.possKilled end
      if c.wolfMask & W ~= 0 then pw = pw * (f.n <= 5 and P.possHitsWolf5 or P.possHitsWolf) ^ popcount(c.wolfMask & W) end
    end
    -- For each role, the genuine holder among the remaining human claimants.
    local opt = pw
    local gen = {}
    for _, R in ipairs(ROLES) do
      local cands, cons, rest = 0, nil, 0
      for i = 1, nh do
        local c = human[i]
        if i ~= p and c.role == R then
          cands = cands + 1
          local ok = (c.wolfMask & ~W) == 0 and (c.humanMask & W) == 0
          if ok and not cons and f.mine ~= R and (f.roleNum[R] or 0) > 0 then cons = c else rest = rest + 1 end
        end
      end
      if cands == 0 then
        if f.mine ~= R and (f.roleNum[R] or 0) > 0 then opt = opt * P.silent[R] end
      else
        opt = opt * P.liar ^ rest
        gen[R] = cons
      end
    end
    -- (with several consistent claimants of a role, the first is taken as
    -- genuine and the others as liars: a lower bound of the sum, enough to rank)
    if p > 0 and gen.SEER and f.n > 5 and human[p].role == "SEER"
       and (human[p].wolfMask >> gen.SEER.who) & 1 == 1 then
      opt = opt * P.possCallsSeer15
    end
    total = total + opt
    if acc then
      local x = w * base * opt
      if p > 0 then acc.pposs[human[p].who] = acc.pposs[human[p].who] + x end
      for R, c in pairs(gen) do acc.pgen[R][c.who] = acc.pgen[R][c.who] + x end
    end
  end
  return base * total
end

local function voteWeight(f, W)
  local P = M.W
  local w = 1
  local votes = f.votes
  for i = 1, #votes do
    local v = votes[i]
    local vw = (W >> v.agent) & 1 == 1
    local tw = (W >> v.target) & 1 == 1
    if vw then
      w = w * (tw and P.voteWolfWolf or P.voteWolfHuman) ^ v.count
    elseif tw then
      w = w * P.voteHumanWolf ^ v.count
    end
  end
  return w
end

-- M.solve(f): {pw = {[a]=p}, pposs = {...}, pgen = {SEER = {...}, ...}, n = sets}.
function M.solve(f)
  local n, k = f.n, f.k
  local forced, forcedMask, cands = 0, 0, {}
  for a = 1, n do
    if f.wolf[a] then forced = forced + 1; forcedMask = forcedMask | (1 << a)
    elseif not f.human[a] then cands[#cands + 1] = a end
  end
  local need = k - forced
  local pw, pposs, pgen = {}, {}, {}
  for _, R in ipairs(ROLES) do pgen[R] = {} end
  for a = 1, n do
    pw[a], pposs[a] = 0, 0
    for _, R in ipairs(ROLES) do pgen[R][a] = 0 end
  end
  local acc = {pposs = pposs, pgen = pgen}
  local aliveCount = popcount(f.aliveMask)
  local total, sets = 0, 0
  local function visit(W)
    local aw = popcount(W & f.aliveMask)
    if aw < 1 or aw >= aliveCount - aw then return end
    local vw = voteWeight(f, W)
    local w = vw * claimWeight(f, W, vw, acc)
    sets = sets + 1
    total = total + w
    for a = 1, n do if (W >> a) & 1 == 1 then pw[a] = pw[a] + w end end
  end
  local function rec(start, left, W)
    if left == 0 then visit(W) return end
    for i = start, #cands - left + 1 do
      rec(i + 1, left - 1, W | (1 << cands[i]))
    end
  end
  if need >= 0 and need <= #cands then rec(1, need, forcedMask) end
  if total <= 0 then
    -- Nothing fits (a contradiction in what was said): fall back on chance.
    for a = 1, n do
      pw[a] = f.wolf[a] and 1 or (f.human[a] and 0 or (need > 0 and need / math.max(1, #cands) or 0))
    end
    return {pw = pw, pposs = pposs, pgen = pgen, sets = 0}
  end
  for a = 1, n do
    pw[a] = pw[a] / total
    pposs[a] = pposs[a] / total
    for _, R in ipairs(ROLES) do pgen[R][a] = pgen[R][a] / total end
  end
  return {pw = pw, pposs = pposs, pgen = pgen, sets = sets}
end

return M
