-- sample.lua: a role-aware agent in the spirit of the official sample agents
-- (AIWolfClient's SampleRoleAssignPlayer), written from scratch on top of
-- aiwolf.agent. What each role does:
--   SEER      comes out on its first talk (5 players: once it found the
--             werewolf, or on day 2), reports every divination (DIVINED),
--             votes for werewolves it found (BECAUSE (DIVINED ..) (VOTE ..))
--             and asks everyone to do the same (REQUEST ANY (VOTE ..));
--             divines undivined agents, suspicious ones first (not known liars).
--   MEDIUM    comes out once it has identified a werewolf, from day 2, or when
--             someone else claims MEDIUM; reports IDENTIFIED results.
--   BODYGUARD guards the most credible seer claimant (then medium claimant).
--   VILLAGER  votes for the most suspicious agent (below).
--   POSSESSED claims SEER and reports fake results: the rival seer is a
--             werewolf, the agents that seer found are human, others at random.
--   WEREWOLF  votes with the crowd against humans (and against a fellow
--             the village has all but executed), whispers an ATTACK proposal
--             or AGREEs with a fellow's proposal when it is as good as its
--             own choice, and attacks credible seer, medium and bodyguard
--             claimants first.
-- Village-side suspicion (S:knowledge, S:suspicion): own results and the
-- agents the werewolves killed (human), what trusted claimants said (a seer
-- or medium claimant the werewolves killed, the only medium claimant),
-- liars (claiming one's own role, contradicting what is known), results of
-- the other seer claimants, past votes (werewolves rarely vote for a fellow)
-- and the votes declared today. Everyone declares its vote (VOTE) and ends
-- its talk with Over. Every choice iterates sorted lists, so a game replays
-- exactly from its seed.
-- Every score is a whole number (a claimant's result shared among n counts
-- points // n), so a sum is the same in any order.
-- Cost: aiwolf.agent reads each talk once (none once this agent is dead, and
-- the past votes on the village side only: S:initialize); what follows from
-- the facts it keeps (claims, reports, results, deaths, votes) is worked out
-- once and kept until they change (self.version moves, S:cached: about twice
-- a day for each seat), and a call adds only today's declared votes, which
-- change with many talks, and keeps the result until a talk other than Over
-- or Skip comes (S:ranking). Each step of a Lua loop costs some tens of
-- machine instructions, a new table some thousands (it grows through resizes
-- as it fills, and is garbage for the collector later), so the code that runs
-- often reads the few agents that matter from lists rather than looking at
-- every agent, uses numeric loops (`for i = 1, #list`: ipairs costs a call
-- per element), reads fields used more than once into locals, and refills
-- tables kept from call to call where one serves (S:scores, bestInto).
local A = require "aiwolf.agent"
local P = require "aiwolf.protocol"
local ipairs, pairs, random = ipairs, pairs, math.random

local S = A.new{name = "sample"}

-- How many times a day an agent may change its declared vote.
local MAX_VOTE_DECLARATIONS = 3

local SPECIAL = {SEER = true, MEDIUM = true, BODYGUARD = true}
local VILLAGE = {VILLAGER = true, SEER = true, MEDIUM = true, BODYGUARD = true}

function S:initialize(info, setting)
  A.Agent.initialize(self, info, setting)
  self.claimed = false          -- came out already
  self.reported = 0             -- own results reported so far
  self.fake = {}                -- possessed: fake results {target, species}, one per day
  self.fakeDone = {}            -- possessed: targets already used
  self.lastAttack = nil         -- werewolf: the target voted for last night
  self.guardedGuess = {}        -- werewolf: targets whose attack failed
  -- What aiwolf.agent reads for this agent: every talk (until it dies: see
  -- dayStart) and the past votes (self.votes) on the village side only,
  -- whose suspicion alone reads them (for the werewolf side it then never
  -- reads info.voteList, which the host makes when read, a table per vote).
  self.keepTalk, self.keepVotes = true, VILLAGE[self.role] == true
end

function S:dayStart()
  self:forget() -- guardedGuess and fake change below: nothing cached survives
  -- Dead (executed or killed): this agent will not talk, vote or act again,
  -- so nothing it could hear from now on matters. aiwolf.agent then reads
  -- no more talks, whispers or votes for it (a dead seat is still told
  -- each day's talk, and nearly a quarter of the days of a fifteen-player
  -- game's seats are dead seats').
  if self.info.statusMap[self.me] ~= "ALIVE" then self.keepTalk, self.keepVotes = false, false end
  self.voteDecl, self.declTarget = 0, nil
  self.requested = {}
  self.proposed = nil -- werewolf: the target proposed or agreed to tonight
  local info = self.info
  if self.role == "WEREWOLF" and self.lastAttack and self.day >= 2 then
    if #(info.lastDeadAgentList or {}) == 0 then self.guardedGuess[self.lastAttack] = true end
  end
  self.lastAttack = nil
  if self.role == "POSSESSED" and self.day >= 1 then self:fakeDivine() end
end

-- Cache -------------------------------------------------------------------------

-- S:cache(): the table S:cached keeps its values in: a new one whenever
-- self.version moves (aiwolf.agent bumps it on every new claim, report,
-- result, death or day's votes) or S:forget() runs.
function S:cache()
  if self._cacheVersion ~= self.version then
    self._cache, self._cacheVersion = {}, self.version
  end
  return self._cache
end

-- S:cached(key, compute): compute(self), worked out once and kept in
-- S:cache(). The value is shared between calls: read it, never modify it.
function S:cached(key, compute)
  local cache = self:cache()
  local v = cache[key]
  if v == nil then
    v = compute(self)
    cache[key] = v
  end
  return v
end

-- Drops what S:cached keeps, for state that self.version does not track.
function S:forget() self._cacheVersion = nil end

-- Knowledge ------------------------------------------------------------------

-- What this agent itself knows about a's species (village side), or nil
-- (knowledge, below, works it out for every agent).
function S:ownSpecies(a) return self:knowledge().own[a] end

-- The agents who said a species that `known` ({[target] = species})
-- contradicts, except those in the set `except` (if any), added to the set
-- `out`.
local function contradicting(reports, known, out, except)
  for i = 1, #reports do
    local r = reports[i]
    local t = known[r.target]
    if t and t ~= r.species and not (except and except[r.who]) then out[r.who] = true end
  end
  return out
end

-- The credible claimants of role (not oneself, not liars), in the order
-- they came out, and {[a] = what a's word is shared among}: 1 for a source
-- (below), else n, the number of them (a result counts points // share:
-- every score stays a whole number).
local function credible(self, role, liars, sources)
  local claimants, claims, me = self.claimants, self.claims, self.me
  local list, share = {}, {}
  for i = 1, #claimants do
    local a = claimants[i]
    if a ~= me and claims[a] == role and not liars[a] then list[#list + 1] = a end
  end
  for i = 1, #list do
    local a = list[i]
    share[a] = sources[a] and 1 or #list
  end
  return list, share
end

-- The village side's knowledge (kept by S:cached until the facts change):
--   sources: claimants whose results are taken as true: seer and medium
--     claimants the werewolves killed, and the only medium claimant, unless
--     they told a lie this agent can prove from its own knowledge;
--   known: {[a] = species} from own knowledge, then those sources;
--   liars: {[a] = true} for agents who contradict that, or who claim
--     one's own special role or a werewolf-side role;
--   own: {[a] = species} from own knowledge alone: human for oneself (on
--     the village side) and for the agents the werewolves killed (they
--     attack humans only), else own divination and medium results;
--   seers, seerShares, mediums, mediumShares: the credible seer and medium
--     claimants (S:credible).
-- It is worked out again about a hundred times a game (each seat, every
-- day, and after each claim and report): it reads the few agents known
-- from lists rather than looking at every agent, and makes as few tables
-- as it can (a new table, growing through resizes as it fills, costs more
-- than many steps of a loop).
local function knowledge(self)
  local me, role, claims, claimants, reports = self.me, self.role, self.claims, self.claimants, self.reports
  -- own, and known as a copy of it: medium results, then divinations (the
  -- same agent in both: the divination counts), then the agents the
  -- werewolves killed, and oneself.
  local own, known = {}, {}
  local results = self.identifications
  for i = 1, #results do
    local r = results[i]
    own[r.target], known[r.target] = r.result, r.result
  end
  results = self.divinations
  for i = 1, #results do
    local r = results[i]
    own[r.target], known[r.target] = r.result, r.result
  end
  local killed = self.killed
  for a in pairs(killed) do own[a], known[a] = "HUMAN", "HUMAN" end
  if VILLAGE[role] then own[me], known[me] = "HUMAN", "HUMAN" end
  -- Liars, first those who contradict own knowledge or make a claim no
  -- honest agent makes (neither is a source).
  local liars = contradicting(reports, own, {})
  local sources, medium, mediumClaimants = {}, nil, 0
  for i = 1, #claimants do
    local a = claimants[i]
    local c = claims[a]
    if a ~= me then
      if (c == role and SPECIAL[c]) or c == "WEREWOLF" or c == "POSSESSED" then
        liars[a] = true
      elseif (c == "SEER" or c == "MEDIUM") and not liars[a] then
        if killed[a] then sources[a] = true end
        if c == "MEDIUM" then medium, mediumClaimants = a, mediumClaimants + 1 end
      end
    end
  end
  if mediumClaimants == 1 and role ~= "MEDIUM" then sources[medium] = true end
  for i = 1, #reports do
    local r = reports[i]
    local claim = claims[r.who]
    if sources[r.who] and known[r.target] == nil
       and ((r.verb == "DIVINED" and claim == "SEER") or (r.verb == "IDENTIFIED" and claim == "MEDIUM")) then
      known[r.target] = r.species
    end
  end
  -- Then those who contradict the sources (a source is judged by own
  -- knowledge only).
  contradicting(reports, known, liars, sources)
  liars[me] = nil
  local k = self._knowledge
  if k == nil then k = {}; self._knowledge = k end
  k.sources, k.known, k.liars, k.own = sources, known, liars, own
  k.seers, k.seerShares = credible(self, "SEER", liars, sources)
  k.mediums, k.mediumShares = credible(self, "MEDIUM", liars, sources)
  return k
end

function S:knowledge() return self:cached("knowledge", knowledge) end

function S:isLiar(a) return self:knowledge().liars[a] == true end
function S:knownSpecies(a) return self:knowledge().known[a] end

-- Credible claimants of role ("SEER" or "MEDIUM"; not oneself, not liars),
-- and what each one's word is shared among (see credible, above).
function S:credible(role)
  local k = self:knowledge()
  if role == "SEER" then return k.seers, k.seerShares end
  return k.mediums, k.mediumShares
end

-- Village-side suspicion of each living other from the facts alone (the
-- declared votes aside): {[a] = score}, kept by S:cached.
local function factSuspicion(self)
  local k, n = self:knowledge(), #self.info.statusMap
  local known, liars, own, sources, claims = k.known, k.liars, k.own, k.sources, self.claims
  -- Kept from one time to the next, as S:scores' tables (below) are.
  local score = self._factSuspicion
  if score == nil then score = {}; self._factSuspicion = score end
  for a = 1, n do score[a] = nil end
  local others = self.others
  for i = 1, #others do score[others[i]] = 0 end
  -- The few agents known or caught lying (pairs: the sums do not depend on
  -- the order).
  for a, sp in pairs(known) do
    if score[a] then
      local s = sp == "WEREWOLF" and 1000 or sp == "HUMAN" and -1000 or 0
      if own[a] then s = s * 2 end -- own knowledge above all
      score[a] = s
    end
  end
  for a in pairs(liars) do
    if score[a] then score[a] = score[a] + 200 end
  end
  local seers, shares = k.seers, k.seerShares
  local reports = self.reports
  for i = 1, #reports do
    local r = reports[i]
    local share = shares[r.who]
    -- Seer claimants calling each other werewolves say nothing new.
    if share and r.verb == "DIVINED" and score[r.target] and r.target ~= r.who
       and (claims[r.target] ~= "SEER" or sources[r.who]) then
      score[r.target] = score[r.target] + (r.species == "WEREWOLF" and 40 or -20) // share
    end
  end
  -- The only credible seer or medium is worth protecting.
  if #seers == 1 and score[seers[1]] then score[seers[1]] = score[seers[1]] - 15 end
  local mediums = k.mediums
  if #mediums == 1 and score[mediums[1]] then score[mediums[1]] = score[mediums[1]] - 10 end
  -- Past votes: werewolves rarely vote for a fellow and often for humans.
  local votes = self.votes
  for i = 1, #votes do
    local v = votes[i]
    local s = score[v.agent]
    if s then
      local sp = known[v.target]
      if sp == "WEREWOLF" then
        score[v.agent] = s - 5
      elseif sp == "HUMAN" then
        score[v.agent] = s + 3
      end
    end
  end
  return score
end

-- The table S:suspicion, S:wolfScore and S:possessedScore return: base (the
-- part from the facts, kept by S:cached) copied into a table this agent
-- keeps under key from call to call (a new table per call would be garbage,
-- and would grow through several resizes as it fills; a numeric loop
-- copies fifteen entries for less than table.move's call). It holds until
-- the next call of the same method: read it, don't keep it.
function S:scores(key, base)
  local score = self[key]
  if score == nil then
    score = {}
    self[key] = score
  end
  for a = 1, #self.info.statusMap do score[a] = base[a] end -- base holds living others only
  return score
end

-- Village-side suspicion of each living other: {[a] = score} (S:scores).
function S:suspicion()
  local score = self:scores("_suspicion", self:cached("suspicion", factSuspicion))
  -- Follow today's declared votes a little, except those of liars; suspect
  -- those who declare against a known human. Every score is a whole number
  -- (see S:credible): the order of the sums does not matter.
  local k, declared, me = self:knowledge(), self.declared, self.me
  local liars, known = k.liars, k.known
  local voters = self.voters
  for i = 1, #voters do
    local v = voters[i]
    local t = declared[v]
    if v ~= me and score[t] and not liars[v] then score[t] = score[t] + 1 end
    if score[v] and known[t] == "HUMAN" then score[v] = score[v] + 2 end
  end
  return score
end

-- Werewolf side, from the facts alone (kept by S:cached; dayStart forgets
-- it, as guardedGuess changes then): {[a] = score} for each living human
-- (a living other the roleMap does not show as a werewolf).
local function factWolfScore(self, forAttack)
  local roleMap, reports, claims = self.info.roleMap, self.reports, self.claims
  -- The werewolves know the truth: who said something false (a fake seer
  -- or medium: most likely the possessed, an ally) and who found a werewolf.
  local lied, accused = {}, {}
  for i = 1, #reports do
    local r = reports[i]
    local truth = roleMap[r.target] == "WEREWOLF" and "WEREWOLF" or "HUMAN"
    if truth ~= r.species then
      lied[r.who] = true
    elseif truth == "WEREWOLF" then
      accused[r.who] = true
    end
  end
  -- By day the werewolves mostly follow the crowd: voting for a claimant
  -- would give them away (a fifth of the points). At night claimants come first.
  local k = forAttack and 1 or 5
  local score, others = {}, self.others
  for i = 1, #others do
    local a = others[i]
    if roleMap[a] ~= "WEREWOLF" then
      local s, c = 0, claims[a]
      if c == "SEER" or c == "MEDIUM" then
        if lied[a] then
          s = s - 100
        else
          s = s + ((c == "SEER" and 50 or 30) + (accused[a] and 10 or 0)) // k
        end
      elseif c == "BODYGUARD" then
        s = s + 40 // k
      end
      if forAttack and self.guardedGuess[a] then s = s - 45 end
      score[a] = s
    end
  end
  return score
end
local function factAttackScore(self) return factWolfScore(self, true) end
local function factDayScore(self) return factWolfScore(self, false) end
local function livingFellows(self) return A.fellows(self.info) end

-- Werewolf side: how much the werewolves want each living human gone
-- ("attack" for the night, else for the day's vote): {[a] = score}
-- (S:scores; nil for fellows, unless lost, below).
function S:wolfScore(forAttack)
  local roleMap = self.info.roleMap
  local score
  if forAttack then
    score = self:scores("_attackScore", self:cached("attack", factAttackScore))
  else
    score = self:scores("_dayScore", self:cached("wolfday", factDayScore))
  end
  local declared = self.declared
  local voters = self.voters
  local count = nil -- by day: the votes declared against each werewolf
  for i = 1, #voters do
    local v = voters[i]
    local t = declared[v]
    local wolf = roleMap[t] == "WEREWOLF"
    if score[t] and not forAttack then score[t] = score[t] + 2 end
    if score[v] and wolf then score[v] = score[v] + 5 end
    if wolf and not forAttack then
      count = count or {}
      count[t] = (count[t] or 0) + 1
    end
  end
  if count then
    -- A fellow that half the village has declared against is lost: vote
    -- with the village, which makes this werewolf look human.
    local half = #self.alive // 2
    local fellows = self:cached("fellows", livingFellows)
    for i = 1, #fellows do
      local f = fellows[i]
      local c = count[f] or 0
      if c >= half then score[f] = 1000 + c end
    end
  end
  return score
end

-- Possessed: it does not know the werewolves; agents the rival seer called
-- werewolves probably are, and the rival seer probably is the real one.
-- From the facts and its own fake results (kept by S:cached; dayStart,
-- which makes up a result, forgets it).
local function factPossessedScore(self)
  local score = {}
  local rivals = {}
  local claimants, claims, me = self.claimants, self.claims, self.me
  for i = 1, #claimants do
    local a = claimants[i]
    if a ~= me and claims[a] == "SEER" then rivals[a] = true end
  end
  local others, reports, fake = self.others, self.reports, self.fake
  for i = 1, #others do
    local a = others[i]
    score[a] = rivals[a] and 30 or 0
  end
  for i = 1, #reports do
    local r = reports[i]
    if rivals[r.who] and score[r.target] then
      score[r.target] = score[r.target] + (r.species == "WEREWOLF" and -50 or 5)
    end
  end
  for i = 1, #fake do
    local f = fake[i]
    if score[f.target] and f.species == "WEREWOLF" then score[f.target] = score[f.target] + 40 end
  end
  return score
end

-- The possessed's scores with today's declared votes (S:scores).
function S:possessedScore()
  local score = self:scores("_possessedScore", self:cached("possessed", factPossessedScore))
  local declared = self.declared
  local voters = self.voters
  for i = 1, #voters do
    local t = declared[voters[i]]
    if score[t] then score[t] = score[t] + 1 end
  end
  return score
end

function S:voteScores()
  if self.role == "WEREWOLF" then return self:wolfScore(false) end
  if self.role == "POSSESSED" then return self:possessedScore() end
  return self:suspicion()
end

-- bestInto(out, list, score): the elements of list with the top score
-- ({[e] = score}; those without one left out), in list order, written into
-- out over what it held; returns the top score (nil: none scored). A.best
-- gives the same in a new table; a ranking keeps its list instead, as it
-- is worked out some two hundred times a game: a new list, which grows
-- through resizes as the ties come and is garbage at the next, costs more
-- than the loop.
local function bestInto(out, list, score)
  -- (Scores are numbers: `if s` tests for one without the call `~= nil`
  -- makes, and > and >= cost no call either, unlike ==.)
  local n, top = 0, nil
  for i = 1, #list do
    local e = list[i]
    local s = score[e]
    if s then
      if not top or s > top then n, top = 0, s end -- a new top: start the list again
      if s >= top then
        n = n + 1
        out[n] = e
      end
    end
  end
  for i = #out, n + 1, -1 do out[i] = nil end
  return top
end

-- The scores of kind ("vote": S:voteScores, "attack": the werewolves'
-- S:wolfScore(true)), the best-scored candidates and the top score, kept
-- while the facts (S:cache) and today's declared votes
-- (self.declaredVersion) stay the same: they are all the scores depend on,
-- so the vote after a round of talk that declared nothing new, for one,
-- gets what the last talk worked out, and the whispers of a night share
-- one ranking. Every scored agent is a living other, and bestInto skips
-- those without a score (a werewolf's fellows), so self.others, already
-- sorted, serves as the list. Read what it returns, never modify it; it
-- holds until the next call.
local RANKING = {vote = "_voteRanking", attack = "_attackRanking"}
function S:ranking(kind)
  local kept = self[RANKING[kind]]
  if kept == nil then
    kept = {best = {}}
    self[RANKING[kind]] = kept
  end
  local cache, declared = self:cache(), self.declaredVersion
  if kept.cache ~= cache or kept.declared ~= declared then
    kept.score = kind == "attack" and self:wolfScore(true) or self:voteScores()
    kept.top = bestInto(kept.best, self.others, kept.score)
    kept.cache, kept.declared = cache, declared
  end
  return kept.score, kept.best, kept.top
end

-- The vote target: the best-scored candidate, but keep the declared one
-- unless another is clearly better, so the talk does not flip-flop.
function S:voteTarget()
  local score, best, top = self:ranking("vote")
  local cur = self.declTarget
  if cur and score[cur] and score[cur] >= top - 2 then return cur end
  return A.pick(best)
end

-- Is the village sure enough about a to ask everyone to vote for it?
function S:sure(a)
  if VILLAGE[self.role] then return self:knownSpecies(a) == "WEREWOLF" end
  if self.role == "POSSESSED" then
    for _, f in ipairs(self.fake) do
      if f.target == a and f.species == "WEREWOLF" then return true end
    end
  end
  return false
end

-- Possessed: makes up today's divination result.
function S:fakeDivine()
  local info = self.info
  local rival, foundByRival = nil, {}
  for _, a in ipairs(self.claimants) do
    if a ~= self.me and self.claims[a] == "SEER" and not self.fakeDone[a] and info.statusMap[a] == "ALIVE" then
      rival = rival or a
    end
  end
  for _, r in ipairs(self.reports) do
    if r.verb == "DIVINED" and self.claims[r.who] == "SEER" and r.who ~= self.me and r.species == "WEREWOLF"
       and not self.fakeDone[r.target] and r.target ~= self.me then
      foundByRival[#foundByRival + 1] = r.target
    end
  end
  local target, species
  if rival then
    target, species = rival, "WEREWOLF"
  elseif #foundByRival > 0 then
    target, species = foundByRival[1], "HUMAN"
  else
    local cands = A.filter(A.others(info), function(a) return not self.fakeDone[a] end)
    target = A.pick(cands)
    local wolves = self.setting.roleNumMap and self.setting.roleNumMap.WEREWOLF or 1
    local called = 0
    for _, f in ipairs(self.fake) do if f.species == "WEREWOLF" then called = called + 1 end end
    species = (called < wolves and random() < 0.5) and "WEREWOLF" or "HUMAN"
  end
  if target then
    self.fakeDone[target] = true
    self.fake[#self.fake + 1] = {target = target, species = species}
  end
end

-- Talk -------------------------------------------------------------------------

-- The seer: in a 5-player game it keeps quiet until it has found the
-- werewolf, or until day 2: a seer out on day 1 with a HUMAN to show is
-- the werewolf's first attack and the possessed's first accusation, while a
-- hidden one lives to divine again and on day 2 names the werewolf among
-- the three left (measured: docs/strategy.md). With 15 players it comes out
-- at once: the village needs its results early.
function S:seerComesOut()
  if #self.info.statusMap > 5 or self.day >= 2 then return true end
  for _, d in ipairs(self.divinations) do
    if d.result == "WEREWOLF" then return true end
  end
  return false
end

function S:wantsToComeOut()
  local r = self.role
  if r == "SEER" then return self:seerComesOut(), "SEER" end
  if r == "POSSESSED" then return true, "SEER" end
  if r == "MEDIUM" then
    for _, a in ipairs(self.claimants) do
      if a ~= self.me and self.claims[a] == "MEDIUM" then return true, "MEDIUM" end
    end
    for _, j in ipairs(self.identifications) do
      if j.result == "WEREWOLF" then return true, "MEDIUM" end
    end
    return self.day >= 2 and #self.identifications > 0, "MEDIUM"
  end
  return false
end

-- The next thing to say, as a sentence, or nil when there is nothing.
function S:nextTalk()
  local co, role = self:wantsToComeOut()
  if co and not self.claimed then
    self.claimed = true
    return P.comingout(self.me, role)
  end
  if self.claimed then
    local results, build = self.divinations, P.divined
    if self.role == "MEDIUM" then results, build = self.identifications, P.identified end
    if self.role == "POSSESSED" then results = {} end
    if self.reported < #results then
      self.reported = self.reported + 1
      local r = results[self.reported]
      return build(r.target, r.result)
    end
    if self.role == "POSSESSED" and self.reported < #self.fake then
      self.reported = self.reported + 1
      local f = self.fake[self.reported]
      return P.divined(f.target, f.species)
    end
  end
  local target = self:voteTarget()
  if target and target ~= self.declTarget and (self.voteDecl or 0) < MAX_VOTE_DECLARATIONS then
    self.declTarget = target
    self.voteDecl = (self.voteDecl or 0) + 1
    if self.role == "SEER" and self.divined[target] == "WEREWOLF" then
      -- Give the reason: BECAUSE (DIVINED Agent[xx] WEREWOLF) (VOTE Agent[xx]).
      return P.because(P.divined(target, "WEREWOLF"), P.vote(target))
    end
    return P.vote(target)
  end
  if target and self:sure(target) and self.requested and not self.requested[target] then
    self.requested[target] = true
    return P.request(P.ANY, P.vote(target))
  end
  return nil
end

-- P.print(s) is the text tostring(s) gives, without going through the
-- sentence's metatable.
function S:talk()
  local s = self:nextTalk()
  if s == nil then return "Over" end
  return P.print(s)
end

-- Werewolves: the attack target, adopting the first whispered proposal that
-- is as good as their own choice; also returns that proposal, if any.
function S:attackTarget()
  local _, best = self:ranking("attack")
  local inBest = {}
  for _, a in ipairs(best) do inBest[a] = true end
  for _, p in ipairs(self.attackProposals) do
    if inBest[p.target] then return p.target, p end
  end
  return A.pick(best), nil
end

-- Once a night: agree with a fellow's proposal, or propose a target; again
-- if that target has died since (under seed2015 the werewolves whisper during
-- the day's talk, before the execution).
function S:whisper()
  if self.day < 1 then return "Over" end
  if self.proposed and A.is_alive(self.info, self.proposed) then return "Over" end
  local t, p = self:attackTarget()
  self.proposed = t
  if t == nil then return "Over" end
  if p and p.who ~= self.me then return P.print(P.agree("WHISPER", self.day, p.idx)) end
  return P.say("ATTACK", t)
end

-- Actions ------------------------------------------------------------------------

function S:vote()
  local t = self:voteTarget()
  if t then return t end
  return A.pick(self.others)
end

function S:attack()
  local t = self:attackTarget()
  self.lastAttack = t
  return t
end

function S:divine()
  local score = self:suspicion()
  -- Known liars will be voted out anyway: learn about someone else.
  local cands = A.filter(self.others, function(a) return self.divined[a] == nil and not self:isLiar(a) end)
  if #cands == 0 then return A.pick(self.others) end
  return A.argmax(cands, function(a) return score[a] end)
end

function S:guard()
  local score = self:suspicion()
  local _, seers = self:credible("SEER")
  local _, mediums = self:credible("MEDIUM")
  return A.argmax(self.others, function(a)
    local g = -score[a] / 10
    if seers[a] then g = g + 100 // seers[a] end
    if mediums[a] then g = g + 50 // mediums[a] end
    return g
  end)
end

return S
