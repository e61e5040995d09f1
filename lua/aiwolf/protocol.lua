-- aiwolf.protocol: the AIWolf protocol 3.6 for Lua agents. It builds
-- sentences (P.vote(3), P.request(P.ANY, P.vote(3)), ...), prints them as the
-- canonical text the official library writes (tostring(s) or P.print(s)),
-- describes them in English or Japanese, resolves omitted subjects and
-- expands ANY. Parsing and validation use the C core "aiwolf.protocol_core"
-- that the aiwolf binary registers in every sandbox; under a plain Lua
-- interpreter without it, P.parse/P.validate/P.normalize return nil and a
-- message (P.has_parser is false) and everything else works.
--
-- Trees are plain tables (docs/protocol.md):
--   {verb = "VOTE", subject = 1 | P.ANY | nil, target = 3 | P.ANY,
--    role = "SEER", species = "HUMAN", talk = {type = "TALK", day = 1, id = 3},
--    day = 1, args = {...}}
-- Agents are integers 1..N; P.ANY (the string "ANY") stands for ANY.
-- Misuse (a bad argument to a builder) raises an error; a failed parse
-- returns nil, message.
--
-- Stateless by rule: inside aiwolf, a sandbox runs this file once and each
-- game's require gets a copy of the table it returns (docs/sandbox.md, "One
-- sandbox, many games"). So no function here may read or write a global
-- when called (every global is made local at the top; the sandbox makes a
-- global read after loading an error), and nothing may change a table of
-- the module after it loaded (caches are filled at load, as agent_texts is).
local type, error, ipairs, pairs, setmetatable, getmetatable, tostring, pcall, require, select =
  type, error, ipairs, pairs, setmetatable, getmetatable, tostring, pcall, require, select
local mtype, concat, format, find = math.type, table.concat, string.format, string.find

-- The C core, where the host registers it. Only its absence (a plain Lua
-- interpreter) leaves the module without a parser; any other failure to
-- load it (out of memory, a protected call refused deep in a stack) is
-- raised: inside aiwolf what this file makes at its first require serves
-- every later game of the sandbox (see the note at the top).
local core_ok, core = pcall(require, "aiwolf.protocol_core")
if not core_ok then
  if type(core) ~= "string" or not find(core, "module 'aiwolf.protocol_core' not found", 1, true) then
    error(core, 0)
  end
  core = nil
end

local ANY = "ANY"
local ROLE_LIST = {"VILLAGER", "SEER", "MEDIUM", "BODYGUARD", "WEREWOLF", "POSSESSED"}
local SPECIES_LIST = {"HUMAN", "WEREWOLF"}
local known_roles = {VILLAGER = true, SEER = true, MEDIUM = true, BODYGUARD = true, WEREWOLF = true,
  POSSESSED = true, FREEMASON = true, FOX = true, ANY = true}
local known_species = {HUMAN = true, WEREWOLF = true, ANY = true}

-- What each verb carries.
local TARGET, ROLE, SPECIES, TALK, DAY, ARGS = 1, 2, 4, 8, 16, 32
local flags = {
  ESTIMATE = TARGET | ROLE, COMINGOUT = TARGET | ROLE,
  DIVINED = TARGET | SPECIES, IDENTIFIED = TARGET | SPECIES,
  DIVINATION = TARGET, GUARD = TARGET, VOTE = TARGET, ATTACK = TARGET,
  GUARDED = TARGET, VOTED = TARGET, ATTACKED = TARGET,
  AGREE = TALK, DISAGREE = TALK, OVER = 0, SKIP = 0,
  REQUEST = TARGET | ARGS, INQUIRE = TARGET | ARGS, DAY = DAY | ARGS,
  BECAUSE = ARGS, NOT = ARGS, AND = ARGS, OR = ARGS, XOR = ARGS,
}

-- Sentences' metatable, protected: getmetatable(s) gives the string
-- "sentence" and setmetatable on a sentence fails (see the note at the top).
-- No __index: a sentence's missing field is nil, never a field of this
-- table (s.__index would hand it out, and with it every later game's
-- sentences).
local Sentence = {}
Sentence.__metatable = "sentence"

local function attach(t)
  if type(t) == "table" and getmetatable(t) == nil then
    setmetatable(t, Sentence)
    if t.args then
      for _, a in ipairs(t.args) do attach(a) end
    end
  end
  return t
end

-- Argument checks: misuse raises, pointing at the caller of the builder.
local function check_agent(a, what)
  if a == ANY then return a end
  if mtype(a) ~= "integer" or a < 1 then
    error(format("%s must be an agent number (1..N) or P.ANY, got %s", what, tostring(a)), 3)
  end
  return a
end

local function check_sentence(s, what)
  if type(s) ~= "table" or flags[s.verb] == nil then
    error(format("%s must be a sentence, got %s", what, tostring(s)), 3)
  end
  return s
end

local function check_int(n, what)
  if mtype(n) ~= "integer" or n < 0 then
    error(format("%s must be a non-negative integer, got %s", what, tostring(n)), 3)
  end
  return n
end

local function new(t) return setmetatable(t, Sentence) end

-- Builders -----------------------------------------------------------------
-- Each one written out (rather than made by a function per shape): loading
-- the module then makes one closure per builder and nothing else.
local function need_role(role)
  if not known_roles[role] then error(format("unknown role %s", tostring(role)), 3) end
  return role
end
local function need_species(species)
  if not known_species[species] then error(format("unknown species %s", tostring(species)), 3) end
  return species
end
-- The two shapes below are reached by a tail call from their builders, so
-- that their errors point at the builder's caller as the builders' own do.
local function talk_ref(verb, kind, day, id)
  if kind ~= "TALK" and kind ~= "WHISPER" then error("talk type must be \"TALK\" or \"WHISPER\"", 2) end
  return new{verb = verb, talk = {type = kind, day = check_int(day, "day"), id = check_int(id, "id")}}
end
local function nary(verb, min, max, ...)
  local n = select("#", ...)
  if n < min or (max and n > max) then
    error(format("%s takes %s sentences, got %d", verb, max == min and tostring(min) or (min .. " or more"), n), 2)
  end
  local args = {...}
  for i = 1, n do check_sentence(args[i], "operand " .. i) end
  return new{verb = verb, args = args}
end

local function estimate(t, r) r = need_role(r) return new{verb = "ESTIMATE", target = check_agent(t, "target"), role = r} end
local function comingout(t, r) r = need_role(r) return new{verb = "COMINGOUT", target = check_agent(t, "target"), role = r} end
local function divination(t) return new{verb = "DIVINATION", target = check_agent(t, "target")} end
local function guard(t) return new{verb = "GUARD", target = check_agent(t, "target")} end
local function vote(t) return new{verb = "VOTE", target = check_agent(t, "target")} end
local function attack(t) return new{verb = "ATTACK", target = check_agent(t, "target")} end
local function divined(t, sp)
  sp = need_species(sp)
  return new{verb = "DIVINED", target = check_agent(t, "target"), species = sp}
end
local function identified(t, sp)
  sp = need_species(sp)
  return new{verb = "IDENTIFIED", target = check_agent(t, "target"), species = sp}
end
local function guarded(t) return new{verb = "GUARDED", target = check_agent(t, "target")} end
local function voted(t) return new{verb = "VOTED", target = check_agent(t, "target")} end
local function attacked(t) return new{verb = "ATTACKED", target = check_agent(t, "target")} end
local function agree(kind, day, id) return talk_ref("AGREE", kind, day, id) end
local function disagree(kind, day, id) return talk_ref("DISAGREE", kind, day, id) end
local function over() return new{verb = "OVER"} end
local function skip() return new{verb = "SKIP"} end
local function request(t, s)
  return new{verb = "REQUEST", target = check_agent(t, "target"), args = {check_sentence(s, "sentence")}}
end
local function inquire(t, s)
  return new{verb = "INQUIRE", target = check_agent(t, "target"), args = {check_sentence(s, "sentence")}}
end
local function because(...) return nary("BECAUSE", 2, 2, ...) end
local function xor(...) return nary("XOR", 2, 2, ...) end
local function and_(...) return nary("AND", 1, nil, ...) end
local function or_(...) return nary("OR", 1, nil, ...) end
local function not_(...) return nary("NOT", 1, 1, ...) end
local function day(d, s)
  return new{verb = "DAY", day = check_int(d, "day"), args = {check_sentence(s, "sentence")}}
end

-- P.by(agent, s): s with an explicit subject (returns s).
local function by(agent, s)
  check_sentence(s, "sentence")
  s.subject = check_agent(agent, "subject")
  return s
end

-- Printing -----------------------------------------------------------------
-- "Agent[03]" for 3: the texts of 1..99 made once, when the module loads
-- (sentences are printed on nearly every talk call); nothing is written to
-- the module's tables after it loaded (see the note at the top).
local agent_texts = {}
for a = 1, 99 do agent_texts[a] = format("Agent[%02d]", a) end
local function agent_text(a)
  if a == ANY or a == 0 then return "ANY" end
  return agent_texts[a] or format("Agent[%02d]", a)
end

local function implied_for_args(s, resolved)
  if s.verb == "REQUEST" or s.verb == "INQUIRE" then return s.target end
  return resolved
end

-- The text of s (implied: the subject its context implies). Built by
-- concatenation, one string per part, with no table: printing runs on nearly
-- every talk call, and most sentences are a verb and one to three words.
local function print_in(s, implied)
  local v = s.verb
  if v == "OVER" then return "Over" end
  if v == "SKIP" then return "Skip" end
  local f = flags[v]
  if f == nil then error("not a sentence: verb " .. tostring(v), 3) end
  local text = v
  local resolved = s.subject
  if resolved ~= nil and resolved ~= implied then text = agent_text(resolved) .. " " .. v end
  if resolved == nil then resolved = implied end
  if f & TALK ~= 0 then
    return text .. format(" %s day%d ID:%d", s.talk.type, s.talk.day, s.talk.id)
  end
  if f & TARGET ~= 0 then text = text .. " " .. agent_text(s.target) end
  if f & ROLE ~= 0 then text = text .. " " .. s.role end
  if f & SPECIES ~= 0 then text = text .. " " .. s.species end
  if f & DAY ~= 0 then text = text .. " " .. s.day end
  if f & ARGS ~= 0 then
    local inner = implied_for_args(s, resolved)
    local args = s.args
    if #args == 0 then return text .. " " end
    -- Operands into a list: a long AND/OR stays linear in its length.
    local out = {text}
    for i, a in ipairs(args) do out[i + 1] = " (" .. print_in(a, inner) .. ")" end
    return concat(out)
  end
  return text
end

-- P.print(s): the canonical text, as the official library writes it.
local function print(s)
  local text = print_in(s, nil) -- not a tail call: errors point at P.print's caller
  return text
end

-- P.say(verb, target [, word]): the text P.print would give for the
-- sentence of one verb about one agent (its role for ESTIMATE and
-- COMINGOUT, its species for DIVINED and IDENTIFIED), or for OVER and SKIP,
-- made by joining strings: no tree, no metatable, no table at all (agents
-- say such a sentence on nearly every talk call). P.say("VOTE", 3) is
-- "VOTE Agent[03]", P.say("ESTIMATE", 3, "WEREWOLF") is tostring(P.estimate(3,
-- "WEREWOLF")); the same checks as the builders. Other verbs: use a builder
-- and P.print. say_words[verb] is what follows the agent: false for
-- nothing, else the table of the words allowed there (made at load, so a
-- call is a few table reads, one check of the agent and one join).
local say_words = {}
for verb, f in pairs(flags) do
  if f & TARGET ~= 0 and f & ARGS == 0 then
    say_words[verb] = (f & ROLE ~= 0 and known_roles) or (f & SPECIES ~= 0 and known_species) or false
  end
end
local function say(verb, t, word)
  local words = say_words[verb]
  if words == nil then
    if verb == "OVER" then return "Over" end
    if verb == "SKIP" then return "Skip" end
    error(format("P.say: %s is not a verb about one agent (use a builder and P.print)", tostring(verb)), 2)
  end
  -- agent_texts holds 1..99; a float such as 3.0 finds "Agent[03]" there
  -- too, so the type is checked (check_agent gives the error, or "ANY").
  local at = agent_texts[t]
  if at == nil or mtype(t) ~= "integer" then at = agent_text(check_agent(t, "target")) end
  if not words then return verb .. " " .. at end
  if not words[word] then
    if words == known_roles then need_role(word) else need_species(word) end
  end
  return verb .. " " .. at .. " " .. word
end
Sentence.__tostring = print

-- Parsing (C core) --------------------------------------------------------
local no_core = "the protocol parser needs the C core aiwolf.protocol_core (run inside aiwolf)"

-- P.parse(text [, mode]): tree, or nil and a message with the byte offset.
-- mode: "strict" (default: exactly what games accept under the default
-- preset, and what `aiwolf protocol` accepts without --lenient) or
-- "lenient" (also Agent1, OVER, SKIP, any letter case). To parse as the
-- game at hand validates, pass setting.validation. P.parse_lenient(text) is
-- P.parse(text, "lenient").
local function parse(text, mode)
  if type(text) ~= "string" then error("P.parse: text must be a string", 2) end
  if not core then return nil, no_core end
  local t, err = core.parse(text, mode)
  if not t then return nil, err end
  return attach(t)
end

-- P.parse_lenient(text): P.parse(text, "lenient").
local function parse_lenient(text)
  if type(text) ~= "string" then error("P.parse_lenient: text must be a string", 2) end
  return parse(text, "lenient")
end

-- P.validate(text [, mode]): true, or nil and a message. mode "strict"
-- (default), "lenient" or "off".
local function validate(text, mode)
  if type(text) ~= "string" then error("P.validate: text must be a string", 2) end
  if not core then return nil, no_core end
  return core.validate(text, mode)
end

-- P.normalize(text [, mode]): the canonical text of text, or nil, message
-- (mode "strict", the default, or "lenient").
local function normalize(text, mode)
  if type(text) ~= "string" then error("P.normalize: text must be a string", 2) end
  if not core then return nil, no_core end
  return core.normalize(text, mode)
end

-- P.wrap(t): gives a plain table tree (as the host hands talks to agents)
-- the sentence metatable, so tostring works on it. Returns t.

-- Subjects (spec 4.1) -------------------------------------------------------
local function copy(s)
  local c = {}
  for k, v in pairs(s) do c[k] = v end
  if s.talk then c.talk = {type = s.talk.type, day = s.talk.day, id = s.talk.id} end
  if s.args then
    c.args = {}
    for i, a in ipairs(s.args) do c.args[i] = copy(a) end
  end
  return setmetatable(c, Sentence)
end

local function resolve_in(s, implied)
  s.who = s.subject
  if s.who == nil then s.who = implied end
  if s.args then
    local inner = implied_for_args(s, s.who)
    for _, a in ipairs(s.args) do resolve_in(a, inner) end
  end
end

-- P.resolve(s, speaker): a copy of s where every node has `who`, its
-- resolved subject: an omitted subject at the top is the speaker, inside
-- REQUEST/INQUIRE the operator's target, elsewhere the parent's subject.
local function resolve(s, speaker)
  local c = copy(check_sentence(s, "sentence"))
  resolve_in(c, speaker)
  return c
end

-- ANY expansion (spec 5.4) ---------------------------------------------------
local expand_in
local NONE = {} -- stands for nil in the lists of choices below
local function choices(any, list, v)
  if any then return list end
  if v == nil then return {NONE} end
  return {v}
end
local function real(v) if v == NONE then return nil end return v end

local function expand_node(s, alive, budget)
  local f = flags[s.verb]
  local subjects = choices(s.subject == ANY, alive, s.subject)
  local targets = choices(f & TARGET ~= 0 and s.target == ANY, alive, s.target)
  local roles = choices(f & ROLE ~= 0 and s.role == ANY, ROLE_LIST, s.role)
  local species = choices(f & SPECIES ~= 0 and s.species == ANY, SPECIES_LIST, s.species)
  local out = {}
  for _, su in ipairs(subjects) do for _, ta in ipairs(targets) do
    for _, ro in ipairs(roles) do for _, sp in ipairs(species) do
      local c = copy(s)
      c.subject, c.target, c.role, c.species = real(su), real(ta), real(ro), real(sp)
      if s.args then
        for i, a in ipairs(s.args) do c.args[i] = expand_in(a, alive, budget) end
      end
      budget.n = budget.n + 1
      if budget.n > budget.max then error("ANY expansion too large", 0) end
      out[#out + 1] = c
    end end
  end end
  if #out == 1 then return out[1] end
  return setmetatable({verb = "OR", args = out}, Sentence)
end
expand_in = function(s, alive, budget) return expand_node(s, alive, budget) end

-- P.expand_any(s, alive [, max]): the sentence with every node that has ANY
-- in its subject, target, role or species replaced by the OR of its concrete
-- versions (agents from the list alive). nil, message if over max nodes.
local function expand_any(s, alive, max)
  check_sentence(s, "sentence")
  if type(alive) ~= "table" or #alive == 0 then error("alive must be a non-empty list of agents", 2) end
  local budget = {n = 0, max = max or 100000}
  local ok, r = pcall(expand_in, s, alive, budget)
  if not ok then return nil, r end
  return r
end

-- Describe -----------------------------------------------------------------
local words = {
  en = {any = "anyone", speaker = "the speaker",
    role = {VILLAGER = "a villager", SEER = "a seer", MEDIUM = "a medium", BODYGUARD = "a bodyguard",
      WEREWOLF = "a werewolf", POSSESSED = "possessed", FREEMASON = "a freemason", FOX = "a fox",
      ANY = "some role"},
    species = {HUMAN = "human", WEREWOLF = "a werewolf", ANY = "human or werewolf"}},
  ja = {any = "誰か", speaker = "発話者",
    role = {VILLAGER = "村人", SEER = "占い師", MEDIUM = "霊媒師", BODYGUARD = "狩人", WEREWOLF = "人狼",
      POSSESSED = "狂人", FREEMASON = "共有者", FOX = "妖狐", ANY = "何らかの役職"},
    species = {HUMAN = "人間", WEREWOLF = "人狼", ANY = "人間か人狼"}},
}
local en_simple = {ESTIMATE = " thinks ", COMINGOUT = " comes out: ", DIVINED = " says ", IDENTIFIED = " says ",
  DIVINATION = " will divine ", GUARD = " will guard ", VOTE = " will vote for ", ATTACK = " will attack ",
  GUARDED = " guarded ", VOTED = " voted for ", ATTACKED = " attacked "}
local ja_simple = {DIVINATION = "を占う", GUARD = "を護衛する", VOTE = "に投票する", ATTACK = "を襲撃する",
  GUARDED = "を護衛した", VOTED = "に投票した", ATTACKED = "を襲撃した"}

local function who_text(w, a)
  if a == ANY or a == 0 then return w.any end
  if a == nil then return w.speaker end
  return agent_text(a)
end

local function describe_en(s, w)
  local v = s.verb
  if v == "OVER" then return who_text(w, s.who) .. " has nothing more to say" end
  if v == "SKIP" then return who_text(w, s.who) .. " skips this turn" end
  if v == "NOT" then return "it is not true that " .. describe_en(s.args[1], w) end
  if v == "DAY" then return format("on day %d, %s", s.day, describe_en(s.args[1], w)) end
  if v == "BECAUSE" then return describe_en(s.args[2], w) .. ", because " .. describe_en(s.args[1], w) end
  if v == "AND" or v == "OR" or v == "XOR" then
    local parts = {}
    for i, a in ipairs(s.args) do parts[i] = describe_en(a, w) end
    if #parts == 0 then return "(nothing)" end
    return (v == "XOR" and "either " or "") .. concat(parts, v == "AND" and ", and " or ", or ")
  end
  local who = who_text(w, s.who)
  if v == "AGREE" or v == "DISAGREE" then
    return format("%s %s with %s %d of day %d", who, v == "AGREE" and "agrees" or "disagrees",
      s.talk.type == "WHISPER" and "whisper" or "talk", s.talk.id, s.talk.day)
  end
  if v == "REQUEST" then return who .. " asks " .. who_text(w, s.target) .. " to act so that: " .. describe_en(s.args[1], w) end
  if v == "INQUIRE" then return who .. " asks " .. who_text(w, s.target) .. " whether: " .. describe_en(s.args[1], w) end
  local text = who .. en_simple[v] .. who_text(w, s.target)
  if s.role then return text .. " is " .. w.role[s.role] end
  if s.species then
    return text .. " is " .. w.species[s.species] .. (v == "DIVINED" and " (divined)" or " (identified)")
  end
  return text
end

local function describe_ja(s, w)
  local v = s.verb
  local function q(a) return "「" .. describe_ja(a, w) .. "」" end
  if v == "OVER" then return who_text(w, s.who) .. "はもう話すことがない" end
  if v == "SKIP" then return who_text(w, s.who) .. "は様子を見る" end
  if v == "NOT" then return q(s.args[1]) .. "ではない" end
  if v == "DAY" then return format("%d日目に", s.day) .. describe_ja(s.args[1], w) end
  if v == "BECAUSE" then return q(s.args[1]) .. "ので" .. q(s.args[2]) end
  if v == "AND" or v == "OR" or v == "XOR" then
    local parts = {}
    for i, a in ipairs(s.args) do parts[i] = q(a) end
    return concat(parts, v == "AND" and "、かつ" or v == "OR" and "、または" or "、またはどちらか一方だけ")
  end
  local who = who_text(w, s.who) .. "は"
  local t = who_text(w, s.target)
  if v == "ESTIMATE" then return who .. t .. "が" .. w.role[s.role] .. "だと思う" end
  if v == "COMINGOUT" then return who .. t .. "が" .. w.role[s.role] .. "だとカミングアウトする" end
  if v == "DIVINED" then return who .. t .. "を占って" .. w.species[s.species] .. "だった" end
  if v == "IDENTIFIED" then return who .. t .. "を霊媒して" .. w.species[s.species] .. "だった" end
  if v == "AGREE" or v == "DISAGREE" then
    return who .. format("%d日目の%s%d番に%s", s.talk.day, s.talk.type == "WHISPER" and "囁き" or "発言",
      s.talk.id, v == "AGREE" and "同意する" or "反対する")
  end
  if v == "REQUEST" then return who .. t .. "に" .. q(s.args[1]) .. "ことを求める" end
  if v == "INQUIRE" then return who .. t .. "に" .. q(s.args[1]) .. "かを尋ねる" end
  return who .. t .. ja_simple[v]
end

-- P.describe(s [, lang [, speaker]]): one line saying what s means, in
-- English ("en", default) or Japanese ("ja").
local function describe(s, lang, speaker)
  check_sentence(s, "sentence")
  lang = lang or "en"
  local w = words[lang]
  if not w then error("lang must be \"en\" or \"ja\"", 2) end
  local r = resolve(s, speaker)
  return lang == "ja" and describe_ja(r, w) or describe_en(r, w)
end

-- The module's table: made at the end in one table constructor (sized once
-- rather than grown key by key). Its functions call each other as locals,
-- never through it, so replacing a field of it changes that field only.
-- ROLES, SPECIES and VERBS are copies: the functions keep their own.
local P = {
  has_parser = core ~= nil,
  ANY = ANY,
  ROLES = {table.unpack(ROLE_LIST)},
  SPECIES = {table.unpack(SPECIES_LIST)},
  VERBS = {},
  estimate = estimate, comingout = comingout, divination = divination, guard = guard, vote = vote,
  attack = attack, divined = divined, identified = identified, guarded = guarded, voted = voted,
  attacked = attacked, agree = agree, disagree = disagree, over = over, skip = skip, request = request,
  inquire = inquire, because = because, xor = xor, and_ = and_, or_ = or_, not_ = not_,
  ["and"] = and_, ["or"] = or_, ["not"] = not_, day = day, by = by,
  print = print, say = say, parse = parse, parse_lenient = parse_lenient, validate = validate, normalize = normalize,
  wrap = attach, copy = copy, resolve = resolve, expand_any = expand_any, describe = describe,
}
for verb, f in pairs(flags) do P.VERBS[verb] = f end
return P
