-- aiwolf.agent: a small base for AIWolf agents (docs/agents.md).
--
-- Two halves:
--   * pure helpers over the `info` table the host hands to agents: living
--     agents (sorted), living others, fellow werewolves, uniform random
--     choice, arg-max with random tie breaks, and the sentences of a talk
--     (nested ones included) with their subjects resolved;
--   * A.Agent, a base agent with default methods that keep what an agent
--     usually wants to remember across calls: the latest info, its own
--     divination/medium results accumulated over the days, who came out as
--     what, the DIVINED/IDENTIFIED reports heard in talk, and the votes and
--     estimates declared today. A.new(t) makes t inherit from it.
--
-- Uses aiwolf.protocol (for P.parse when a talk has no pre-parsed tree).
-- Every list this module returns is sorted or in talk order, never in
-- pairs() order, so agents built on it replay exactly from the game's seed.
-- Misuse (a wrong argument type) raises an error; nothing here fails
-- otherwise. The module creates no globals.
local type, error, ipairs, pairs, setmetatable, tostring, sort, random, mtype =
  type, error, ipairs, pairs, setmetatable, tostring, table.sort, math.random, math.type
local P = require "aiwolf.protocol"
-- The host's reader of the day's talks (docs/agents.md, "aiwolf.talks"):
-- present when the agent runs in aiwolf, absent under a plain Lua.
local talks_ok, T = pcall(require, "aiwolf.talks")
if not talks_ok or type(T) ~= "table" then T = nil end
local host_count, host_talks, host_tree = T and T.count, T and T.talks, T and T.tree

local A = {}

local function check_info(info, fn)
  if type(info) ~= "table" or type(info.statusMap) ~= "table" then
    error(fn .. ": info must be the table the host passes to update()", 3)
  end
end

local function check_list(list, fn)
  if type(list) ~= "table" then error(fn .. ": expected a list, got " .. tostring(list), 3) end
end

-- Living agents and roles ----------------------------------------------------

-- A.alive(info): the living agents, sorted.
function A.alive(info)
  check_info(info, "A.alive")
  local out = {}
  -- statusMap is a sequence 1..N: a numeric loop keeps the order fixed.
  for a = 1, #info.statusMap do
    if info.statusMap[a] == "ALIVE" then out[#out + 1] = a end
  end
  return out
end

-- A.is_alive(info, a): whether agent a is alive.
function A.is_alive(info, a)
  check_info(info, "A.is_alive")
  return info.statusMap[a] == "ALIVE"
end

-- A.others(info): the living agents other than oneself, sorted.
function A.others(info)
  check_info(info, "A.others")
  local out = {}
  for a = 1, #info.statusMap do
    if a ~= info.agent and info.statusMap[a] == "ALIVE" then out[#out + 1] = a end
  end
  return out
end

-- A.fellows(info [, all]): one's fellow werewolves (as roleMap shows them to a
-- werewolf), sorted; only living ones unless all is true. Empty for others.
function A.fellows(info, all)
  check_info(info, "A.fellows")
  local out = {}
  if info.role ~= "WEREWOLF" then return out end
  for a = 1, #info.statusMap do
    if a ~= info.agent and info.roleMap[a] == "WEREWOLF" and (all or info.statusMap[a] == "ALIVE") then
      out[#out + 1] = a
    end
  end
  return out
end

-- A.humans(info): living others that are not known werewolves (for a
-- werewolf: the legal attack targets), sorted.
function A.humans(info)
  check_info(info, "A.humans")
  local out = {}
  for a = 1, #info.statusMap do
    if a ~= info.agent and info.statusMap[a] == "ALIVE" and info.roleMap[a] ~= "WEREWOLF" then
      out[#out + 1] = a
    end
  end
  return out
end

-- Choosing -------------------------------------------------------------------

-- A.pick(list): an element chosen uniformly at random with math.random (which
-- the host seeds per game and seat), or nil for an empty list. Pass a sorted
-- list (or one in a fixed order) so that the game replays exactly.
function A.pick(list)
  check_list(list, "A.pick")
  local n = #list
  if n == 0 then return nil end
  return list[random(n)]
end

-- A.filter(list, keep): the elements e of list for which keep(e) is true, in order.
function A.filter(list, keep)
  check_list(list, "A.filter")
  local out, n = {}, 0
  -- The loops over a caller's list read list[1], list[2], ... up to the
  -- first nil, as ipairs does, without ipairs' call per element.
  local i, e = 1, list[1]
  while e ~= nil do
    if keep(e) then n = n + 1; out[n] = e end
    i = i + 1
    e = list[i]
  end
  return out
end

-- A.best(list, score): the elements with the highest score(e), in list order,
-- and that score. Elements whose score is nil are left out. score may also be
-- a table {[e] = score}: A.best(cands, scores) needs no closure.
function A.best(list, score)
  check_list(list, "A.best")
  -- One table, refilled from its start when a higher score turns up (a new
  -- table each time would be garbage), cut to the n best at the end.
  local out, n, top = {}, 0, nil
  local lookup = type(score) == "table"
  local i, e = 1, list[1]
  while e ~= nil do
    local s
    if lookup then s = score[e] else s = score(e) end
    if s ~= nil then
      if top == nil or s > top then
        n, top = 1, s
        out[1] = e
      elseif s == top then
        n = n + 1
        out[n] = e
      end
    end
    i = i + 1
    e = list[i]
  end
  i = n + 1
  while out[i] ~= nil do out[i] = nil; i = i + 1 end
  return out, top
end

-- A.argmax(list, score): A.pick(A.best(list, score)): the best element, ties
-- broken at random; nil when no element has a score.
function A.argmax(list, score)
  return A.pick((A.best(list, score)))
end

-- A.tally(map): counts the values of a map {[k] = v} (for example the votes
-- declared today, {[voter] = target}) into {[v] = count}.
function A.tally(map)
  check_list(map, "A.tally")
  local count = {}
  for _, v in pairs(map) do count[v] = (count[v] or 0) + 1 end -- order does not matter for a sum
  return count
end

-- A.sorted_keys(map): the keys of a map, sorted (numbers before strings).
-- Maps keyed by agents (the common case: keys 1..N, some missing) are read
-- by a walk over 1, 2, 3, ... until every key is found, without sorting;
-- other maps are sorted with table.sort's own comparison, numbers and
-- strings apart, so no Lua comparator runs.
function A.sorted_keys(map)
  check_list(map, "A.sorted_keys")
  local n = 0
  for _ in pairs(map) do n = n + 1 end
  local keys, found = {}, 0
  for k = 1, 2 * n + 16 do
    if found == n then return keys end
    if map[k] ~= nil then found = found + 1; keys[found] = k end
  end
  if found == n then return keys end
  -- Not small positive integers only: gather and sort.
  local strs = nil
  keys = {}
  for k in pairs(map) do
    if type(k) == "number" then
      keys[#keys + 1] = k
    else
      strs = strs or {}
      strs[#strs + 1] = k
    end
  end
  sort(keys)
  if strs then
    sort(strs)
    for _, k in ipairs(strs) do keys[#keys + 1] = k end
  end
  return keys
end

-- Talk -----------------------------------------------------------------------

-- A.tree(talk): the parsed tree of a talkList/whisperList entry: the host's
-- talk.parsed when present, else P.parse(talk.text, "lenient") when the
-- parser is available (the game already accepted the text, under whatever
-- mode it validates with), else nil (and a message).
function A.tree(talk)
  if type(talk) ~= "table" then error("A.tree: expected a talk entry, got " .. tostring(talk), 2) end
  if talk.parsed then return talk.parsed end
  if type(talk.text) ~= "string" then return nil, "the talk has no text" end
  return P.parse(talk.text, "lenient")
end

-- Operators whose operands the speaker asserts (states as true, or as its
-- own intention): AND, both parts of BECAUSE (the reason too), and DAY.
-- Under NOT, OR, XOR, REQUEST and INQUIRE the speaker asserts nothing about
-- an operand alone.
local asserting = {AND = true, BECAUSE = true, DAY = true}

-- walk(s, who, asserted, op, depth, visit, x, y): calls
-- visit(x, y, subject, s, asserted, op, depth) for s and every sentence
-- nested in it, in text order (an operator before its operands). x and y
-- are passed through so that callers need no closure per talk.
local function walk(s, who, asserted, op, depth, visit, x, y)
  local subj = s.subject
  if subj == nil then subj = who end
  visit(x, y, subj, s, asserted, op, depth)
  local args = s.args
  if type(args) ~= "table" then return end
  local v = s.verb
  -- Spec 4.1: inside REQUEST/INQUIRE an omitted subject is the addressee;
  -- elsewhere it is the enclosing sentence's subject.
  local inner = (v == "REQUEST" or v == "INQUIRE") and s.target or subj
  local keeps = asserted and asserting[v] == true
  for _, a in ipairs(args) do
    if type(a) == "table" then walk(a, inner, keeps, v, depth + 1, visit, x, y) end
  end
end

local function add_entry(out, _, who, s, asserted, op, depth)
  out[#out + 1] = {who = who, s = s, asserted = asserted, op = op, depth = depth}
end

-- A.sentences(talk): every sentence of one talk, nested ones included, in
-- text order (an operator before its operands), as a list of entries
--   {who = subject, s = sentence, asserted = bool, op = verb or nil, depth = n}
-- who: the subject resolved (spec 4.1: an omitted subject is the speaker at
--   the top, the addressee inside REQUEST/INQUIRE, else the enclosing
--   sentence's subject; who may be P.ANY);
-- asserted: whether the speaker states it: true for the top sentence and,
--   recursively, for the operands of AND, both parts of BECAUSE (reason and
--   conclusion) and the content of DAY; false for anything under NOT, OR,
--   XOR, REQUEST or INQUIRE (`REQUEST ANY (VOTE Agent[03])` lists the
--   REQUEST, asserted, and the VOTE, not asserted, with who = "ANY");
-- op: the verb of the enclosing operator (nil for the top sentence);
-- depth: 0 for the top sentence, 1 for its operands, ...
-- The operator sentences themselves are listed too (`BECAUSE (A) (B)` gives
-- BECAUSE, A, B). An empty list when the talk cannot be parsed.
function A.sentences(talk)
  local tree = A.tree(talk)
  local out = {}
  if tree then walk(tree, talk.agent, true, nil, 0, add_entry, out) end
  return out
end

-- The base agent ---------------------------------------------------------------

local Agent = {}
A.Agent = Agent

-- A.new([t]): t (or a new table) made to inherit A.Agent's methods through a
-- metatable __index. Override any method; call the base one explicitly when
-- you override update or initialize:  A.Agent.update(self, info).
function A.new(t)
  if t == nil then t = {} end
  if type(t) ~= "table" then error("A.new: expected a table, got " .. tostring(t), 2) end
  return setmetatable(t, {__index = Agent})
end

function Agent:getName() return self.name or "agent" end

-- Builds self.alive and self.others from statusMap (at initialize, and
-- again when someone has died).
local function read_status(self, status)
  local alive, others, seen, me = {}, {}, self._status, self.me
  for a = 1, #status do
    local st = status[a]
    seen[a] = st
    if st == "ALIVE" then
      alive[#alive + 1] = a
      if a ~= me then others[#others + 1] = a end
    end
  end
  self.alive, self.others = alive, others
  self.version = self.version + 1
end

-- initialize: remembers info and setting and resets the state kept below.
--   self.info, self.setting, self.me (own index), self.role (own role),
--   self.day (the current day),
--   self.alive / self.others: the living agents / the living others, sorted
--     (rebuilt as new lists only when someone dies: read them, never modify);
--   self.divinations / self.identifications: own results, one per day,
--     oldest first ({agent, day, target, result});
--   self.divined / self.identified: {[target] = "HUMAN"|"WEREWOLF"} from them;
--   self.claims: {[agent] = role}, each agent's latest COMINGOUT of itself;
--   self.claimants: agents in the order they first came out (any role);
--   self.reports: DIVINED/IDENTIFIED heard in talk (asserted ones, nested
--     included: the reason of BECAUSE, inside AND or DAY), in talk order, one per
--     (speaker, verb, target): {who, verb, target, species, day};
--   self.declared: {[agent] = target}, the latest VOTE each agent declared today;
--   self.voters: the agents in self.declared, sorted (A.sorted_keys(self.declared)
--     without making it at every call);
--   self.declaredVersion: a number that grows whenever self.declared
--     changes (a new day's empty one included);
--   self.estimates: {[agent] = {[target] = role}}, latest ESTIMATEs today;
--   self.attackProposals: ATTACK targets whispered today, in order ({who, target, idx});
--   self.executed / self.killed: {[agent] = day} of the agents executed by
--     vote and killed by the werewolves (killed agents are certainly human);
--   self.votes: every day's final votes, oldest first ({agent, day, target}:
--     the entries of info.voteList, which shows the previous day's, kept
--     as the host handed them out, not copied: read them, never modify);
--     an agent that never reads them sets self.keepVotes = false (in its
--     initialize, after this one), and then info.voteList is not read at
--     all: the host makes that list, a table per vote, when it is read;
--   self.version: a number that grows whenever one of the fields above
--     changes, except self.info, self.day and today's declared, voters, estimates
--     and attackProposals (which change with nearly every talk). An agent
--     that derives something from claims, reports, results, deaths or votes
--     can keep it until self.version moves (sample.lua does).
function Agent:initialize(info, setting)
  self.info, self.setting = info, setting
  self.me, self.role, self.day = info.agent, info.role, info.day
  self.alive, self.others, self._status = {}, {}, {}
  self.divinations, self.identifications = {}, {}
  self.divined, self.identified = {}, {}
  self.claims, self.claimants = {}, {}
  self.reports, self._reported = {}, {}
  self.declared, self.voters, self.estimates, self.attackProposals = {}, {}, {}, {}
  self.declaredVersion = 0
  self.executed, self.killed = {}, {}
  self.votes, self._votes_day = {}, -1
  self.version = 0
  self._talk_seen, self._whisper_seen, self._seen_day = 0, 0, info.day
  self._trees = {} -- text -> its tree (false: none), see read_new
  if info.statusMap then read_status(self, info.statusMap) end
end

local EMPTY = {} -- stands for an absent list (never written to)

-- Adds an own result (info.divineResult or mediumResult) unless it is the
-- one added last; true when it was new.
local function add_result(list, map, r)
  if not r then return false end
  local last = list[#list]
  if last and last.day == r.day and last.target == r.target then return false end
  list[#list + 1] = {agent = r.agent, day = r.day, target = r.target, result = r.result}
  map[r.target] = r.result
  return true
end

-- Records that agent who declared a vote for agent t (both integers).
local function declare(self, who, t)
  local was = self.declared[who]
  if was ~= t then
    if was == nil then -- a new voter today: into self.voters, in order
      local voters = self.voters
      local i = #voters
      while i > 0 and voters[i] > who do
        voters[i + 1] = voters[i]
        i = i - 1
      end
      voters[i + 1] = who
    end
    self.declared[who] = t
    self.declaredVersion = self.declaredVersion + 1
  end
end

-- Records one talk sentence of a talk of day `day` (idempotent: hearing a
-- talk twice changes nothing). Agent:_hear, below, is this with the talk.
local function hear(self, day, who, s)
  local v = s.verb
  if mtype(who) ~= "integer" then return end
  if v == "VOTE" then -- the most frequent by far
    local t = s.target
    if mtype(t) == "integer" then declare(self, who, t) end
  elseif v == "COMINGOUT" and s.target == who and s.role ~= P.ANY then
    local old = self.claims[who]
    if old ~= s.role then
      if not old then self.claimants[#self.claimants + 1] = who end
      self.claims[who] = s.role
      self.version = self.version + 1
    end
  elseif (v == "DIVINED" or v == "IDENTIFIED") and mtype(s.target) == "integer" and s.species ~= P.ANY then
    local key = who .. v .. s.target
    if not self._reported[key] then
      self._reported[key] = true
      self.reports[#self.reports + 1] = {who = who, verb = v, target = s.target, species = s.species,
        day = day}
      self.version = self.version + 1
    end
  elseif v == "ESTIMATE" and mtype(s.target) == "integer" then
    local e = self.estimates[who]
    if not e then e = {}; self.estimates[who] = e end
    e[s.target] = s.role
  end
end

function Agent:_hear(talk, who, s) hear(self, talk.day, who, s) end

-- Records one whisper sentence of the whisper numbered idx.
local function hear_whisper(self, idx, who, s)
  if s.verb == "ATTACK" and mtype(s.target) == "integer" and mtype(who) == "integer" then
    self.attackProposals[#self.attackProposals + 1] = {who = who, target = s.target, idx = idx}
  end
end

function Agent:_hear_whisper(talk, who, s) hear_whisper(self, talk.idx, who, s) end

-- Visitors for walk (above): one sentence of a new talk or whisper. The
-- asserted ones update the state; then the agent's onTalk/onWhisper, if it
-- has one, gets the entry A.sentences would list.
local function heard_talk(self, t, who, s, asserted, op, depth)
  if asserted then self:_hear(t, who, s) end
  local on = self.onTalk
  if on then on(self, t, who, s, {who = who, s = s, asserted = asserted, op = op, depth = depth}) end
end

local function heard_whisper(self, t, who, s, asserted, op, depth)
  if asserted then self:_hear_whisper(t, who, s) end
  local on = self.onWhisper
  if on then on(self, t, who, s, {who = who, s = s, asserted = asserted, op = op, depth = depth}) end
end

-- Reads list[from+1..#list] (the talks or whispers not read yet) with
-- visit; returns how far it has read. Without a hook (onTalk/onWhisper):
--   * an Over or Skip tells the base agent nothing; about half the talks
--     are, and their text says so: they are passed over without reading
--     `parsed` (the host makes that tree when it is first read);
--   * a sentence's tree depends on its text only (the speaker is not in
--     it), and the same few texts come again and again ("VOTE Agent[03]"):
--     each text's tree is read once a game and kept in self._trees, keyed
--     by the text (`parsed` makes the host build a new tree for every
--     reader of every talk; a look-up by a string costs next to nothing).
-- With a hook every tree is the talk's own `parsed`, as the hook may keep
-- or change it. (read_host, below, reads what the host holds without the
-- entries, and hears a sentence without operands without the walk.)
local function read_new(self, list, from, visit, hook)
  local n = #list
  local trees = self._trees
  if trees == nil then trees = {}; self._trees = trees end
  for i = from + 1, n do
    local t = list[i]
    local text = t.text
    local tree
    if hook then
      tree = t.parsed or A.tree(t)
    elseif text ~= "Over" and text ~= "Skip" then
      tree = trees[text]
      if tree == nil then
        tree = t.parsed or A.tree(t) or false -- false: a text that does not parse
        if type(text) == "string" then trees[text] = tree end
      end
      if tree and (tree.verb == "OVER" or tree.verb == "SKIP") then tree = false end
    end
    if tree then walk(tree, t.agent, true, nil, 0, visit, self, t) end
  end
  return n
end

-- walk's visitors for read_host: x is the agent, y the talk's day (the
-- whisper's idx).
local function heard_host_talk(self, day, who, s, asserted)
  if asserted then hear(self, day, who, s) end
end

local function heard_host_whisper(self, idx, who, s, asserted)
  if asserted then hear_whisper(self, idx, who, s) end
end

-- read_new without hooks and with the base agent's own _hear and
-- _hear_whisper, over the host's reader (aiwolf.talks) instead of
-- talkList/whisperList: the same talks, read as plain values, so that no
-- table is made per talk (nor talkList itself, unless the agent reads it);
-- a text's tree comes from the host only when the text is new. A sentence
-- without operands (most: VOTE, COMINGOUT, ...) is heard as walk would
-- hear it, without the walk (a VOTE without hear).
local function read_host(self, info, from, whisper)
  local trees = self._trees
  if trees == nil then trees = {}; self._trees = trees end
  local seen = from
  for i, agent, day, idx, _, text in host_talks(info, from, whisper) do
    seen = i
    if text ~= "Over" and text ~= "Skip" then
      local tree = trees[text]
      if tree == nil then
        tree = host_tree(info, i, whisper) or P.parse(text, "lenient") or false -- false: does not parse
        trees[text] = tree
      end
      if tree then
        local v = tree.verb
        if v ~= "OVER" and v ~= "SKIP" then
          if tree.args == nil then
            local who = tree.subject
            if who == nil then who = agent end
            if whisper then
              hear_whisper(self, idx, who, tree)
            else
              local target = tree.target
              if v == "VOTE" and mtype(who) == "integer" and mtype(target) == "integer" then
                declare(self, who, target)
              else
                hear(self, day, who, tree)
              end
            end
          elseif whisper then
            walk(tree, agent, true, nil, 0, heard_host_whisper, self, idx)
          else
            walk(tree, agent, true, nil, 0, heard_host_talk, self, day)
          end
        end
      end
    end
  end
  return seen
end

-- update: keeps self.info and the state listed at initialize, reading only
-- what is new since the last call: the talks and whispers past the ones
-- already read (each talk is parsed and heard once: talkList grows during
-- the day and starts over the next), the votes only when they differ from
-- what it holds, and the statusMap, results and deaths only when the day,
-- latestExecutedAgent or the info table changed since it last looked (the
-- only times the host changes them). Only asserted sentences
-- (see A.sentences) count as claims, reports, declared votes and estimates.
-- For each new talk sentence (every entry of A.sentences, nested ones
-- included) it calls self:onTalk(talk, who, s, entry) and for each whisper
-- sentence self:onWhisper(talk, who, s, entry), if the agent defines them;
-- check entry.asserted before taking s as what the speaker states.
-- An agent that needs no more of the talk (one that is dead, say: it will
-- not talk, vote or act again) sets self.keepTalk = false: update then
-- reads no talks or whispers (nor calls onTalk/onWhisper) while it is
-- false: the claims and reports stay as they were, and today's declared
-- votes, estimates and attack proposals are empty from the next day on;
-- set back to true (or nil) on the same day, it reads every talk of the
-- day it has not read yet.
function Agent:update(info)
  self.info = info
  if self.me == nil then self.me, self.role = info.agent, info.role end
  if self.divinations == nil then Agent.initialize(self, info, self.setting or {}) end
  local day = info.day -- each read of a field of info looks it up behind __index: read once
  if day ~= self._seen_day then
    self._seen_day = day
    self._talk_seen, self._whisper_seen = 0, 0
    self.declared, self.voters, self.estimates, self.attackProposals = {}, {}, {}, {}
    self.declaredVersion = (self.declaredVersion or 0) + 1
  end
  self.day = day
  -- Deaths, executions and the night's results change only when the day
  -- does (the night's deaths, divineResult, mediumResult, executedAgent,
  -- lastDeadAgentList) or at an execution (latestExecutedAgent): the looks
  -- below are taken only when one of them, or the info table itself,
  -- changed since the last look.
  local latest = info.latestExecutedAgent
  if day ~= self._looked_day or latest ~= self._looked_latest or info ~= self._looked_info then
    self._looked_day, self._looked_latest, self._looked_info = day, latest, info
    -- Who is alive: a look at each agent's status, a rebuild only on a change.
    local status, seen = info.statusMap or EMPTY, self._status
    for a = 1, #status do
      if status[a] ~= seen[a] then read_status(self, status) break end
    end
    -- latestExecutedAgent: executed today (seen at night); executedAgent: the
    -- day before; lastDeadAgentList: killed last night.
    local executed = self.executed
    local ex = latest
    if ex and not executed[ex] then executed[ex] = day; self.version = self.version + 1 end
    ex = info.executedAgent
    if ex and not executed[ex] then executed[ex] = day - 1; self.version = self.version + 1 end
    -- Numeric loops over the host's lists (sequences): no call per element, as ipairs makes.
    local dead = info.lastDeadAgentList or EMPTY
    for i = 1, #dead do
      local a = dead[i]
      if not executed[a] and not self.killed[a] then
        self.killed[a] = day - 1
        self.version = self.version + 1
      end
    end
    if add_result(self.divinations, self.divined, info.divineResult) then self.version = self.version + 1 end
    if add_result(self.identifications, self.identified, info.mediumResult) then
      self.version = self.version + 1
    end
  end
  -- The day's final votes, unless the agent turned them down. The host
  -- hands out each entry once and never changes it (docs/agents.md), so
  -- self.votes keeps the entries themselves: a copy would be a table more
  -- per vote.
  local vl = self.keepVotes ~= false and info.voteList
  if vl and vl[1] and vl[1].day > self._votes_day then
    self._votes_day = vl[1].day
    local votes = self.votes
    local n = #votes
    for i = 1, #vl do votes[n + i] = vl[i] end
    self.version = self.version + 1
  end
  -- Talk and whispers, unless the agent turned them down: only the entries
  -- past those read already; through the host's reader when nothing needs
  -- the entries themselves (a hook, or an agent's own _hear, gets them)
  -- and info is the host's (count is nil for any other table).
  if self.keepTalk == false then return end
  local n = self.onTalk == nil and self._hear == Agent._hear and host_count and host_count(info)
  if n then
    if n > self._talk_seen then self._talk_seen = read_host(self, info, self._talk_seen, false) end
  else
    local talks = info.talkList or EMPTY
    if #talks > self._talk_seen then
      self._talk_seen = read_new(self, talks, self._talk_seen, heard_talk, self.onTalk)
    end
  end
  n = self.onWhisper == nil and self._hear_whisper == Agent._hear_whisper and host_count and host_count(info, true)
  if n then
    if n > self._whisper_seen then self._whisper_seen = read_host(self, info, self._whisper_seen, true) end
  else
    local whispers = info.whisperList or EMPTY
    if #whispers > self._whisper_seen then
      self._whisper_seen =
        read_new(self, whispers, self._whisper_seen, heard_whisper, self.onWhisper)
    end
  end
end

-- self:claimantsOf(role): the agents that claim role (their latest claim),
-- in the order they first came out.
function Agent:claimantsOf(role)
  local out = {}
  for _, a in ipairs(self.claimants) do
    if self.claims[a] == role then out[#out + 1] = a end
  end
  return out
end

-- self:estimated(role): {[target] = how many agents estimated target to be
-- role today (their latest ESTIMATE about target)}.
function Agent:estimated(role)
  local count = {}
  for _, byTarget in pairs(self.estimates) do -- a sum: the order does not matter
    for t, r in pairs(byTarget) do
      if r == role then count[t] = (count[t] or 0) + 1 end
    end
  end
  return count
end

function Agent:dayStart() end
function Agent:finish() end

-- Talk and whisper: nothing to say.
function Agent:talk() return "Over" end
function Agent:whisper() return "Over" end

-- Actions: a uniformly random legal choice (never oneself; werewolves never
-- attack a fellow werewolf).
function Agent:vote() return A.pick(A.others(self.info)) end
function Agent:divine() return A.pick(A.others(self.info)) end
function Agent:guard() return A.pick(A.others(self.info)) end
function Agent:attack() return A.pick(A.humans(self.info)) end

return A
