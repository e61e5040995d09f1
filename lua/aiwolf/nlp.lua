-- aiwolf.nlp: helpers for agents of the NLP division (docs/nlp.md), where
-- agents have names (info.names[i]), talk in English or Japanese
-- (info.lang) and every talk is cut to a length rule.
--
--   * names: N.name(info, a), N.agent(info, name), N.mention(info, a, text);
--   * the length rule as the official server counts it (characters, not
--     bytes; white space not counted unless asked): N.length, N.truncate
--     (never inside a UTF-8 sequence), N.fit(info, text) (the rule info
--     carries: baseLength + remainLength before the first @mention,
--     mentionLength after it, maxLength in all);
--   * templates and the renderer: N.say(info, key, ...) fills a first-person
--     template of the game's language ("I am the seer." / "私は占い師です。"),
--     N.render(info, sentence) turns a protocol sentence (text or an
--     aiwolf.protocol table) into a line of English or Japanese with names;
--   * reading other agents' text, in the simple forms the official sample
--     agents write: N.mentions (who is addressed: @Name, >>Name),
--     N.names_in (who is named), N.claim (the role a speaker claims),
--     N.results (divination or medium results reported).
--
-- Every list is in the order of the text, never in pairs() order, so agents
-- replay exactly. Stateless: no function reads or writes a global when
-- called; the module's tables are never changed after it loads (see
-- aiwolf.protocol's note on "One sandbox, many games"). Misuse (a wrong
-- argument type) raises an error.
local type, error, ipairs, tostring, tonumber, require = type, error, ipairs, tostring, tonumber, require
local byte, sub, find, format, gsub, lower = string.byte, string.sub, string.find, string.format, string.gsub,
  string.lower
local sort = table.sort
local P = require "aiwolf.protocol"

local N = {}

local function check_info(info, fn)
  if type(info) ~= "table" or type(info.statusMap) ~= "table" then
    error(fn .. ": info must be the table the host passes to update()", 3)
  end
end

local function check_text(text, fn)
  if type(text) ~= "string" then error(fn .. ": expected a string, got " .. tostring(text), 3) end
end

-- Names --------------------------------------------------------------------

-- N.name(info, a): agent a's name (info.names[a]), or "Agent[0a]" outside an
-- NLP game.
function N.name(info, a)
  check_info(info, "N.name")
  local names = info.names
  if names and names[a] then return names[a] end
  return format("Agent[%02d]", a)
end

-- N.agent(info, name): the agent whose name is name (also "Agent[03]"), or nil.
function N.agent(info, name)
  check_info(info, "N.agent")
  if type(name) ~= "string" then return nil end
  local names = info.names
  if names then
    for a = 1, #info.statusMap do
      if names[a] == name then return a end
    end
  end
  local d = name:match("^Agent%[(%d%d)%]$")
  local a = d and tonumber(d)
  if a and a >= 1 and a <= #info.statusMap then return a end
  return nil
end

-- N.mention(info, a, text): text addressed to agent a: "@Name text". The
-- server counts what follows a mention against mentionLength, apart from
-- the text before it.
function N.mention(info, a, text)
  check_info(info, "N.mention")
  check_text(text, "N.mention")
  return "@" .. N.name(info, a) .. " " .. text
end

-- The length rule -----------------------------------------------------------

-- The bytes of the character at i of s (1 for a byte that starts no valid
-- UTF-8 sequence) and whether it is white space (as Go's unicode.IsSpace for
-- ASCII space, tab, newline, CR, VT, FF, U+0085, U+00A0, U+1680,
-- U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000).
local function char_at(s, i)
  local c = byte(s, i)
  if c < 0x80 then return 1, c == 32 or (c >= 9 and c <= 13) end
  local n = c >= 0xC2 and c <= 0xDF and 2 or c >= 0xE0 and c <= 0xEF and 3 or c >= 0xF0 and c <= 0xF4 and 4 or 0
  if n == 0 or i + n - 1 > #s then return 1, false end
  for k = 1, n - 1 do
    local cc = byte(s, i + k)
    if cc < 0x80 or cc > 0xBF then return 1, false end
  end
  local c1, c2 = byte(s, i + 1), byte(s, i + 2)
  if (c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 >= 0xA0) or (c == 0xF0 and c1 < 0x90) or (c == 0xF4 and c1 >= 0x90) then
    return 1, false
  end
  local space = false
  if n == 2 then
    space = c == 0xC2 and (c1 == 0x85 or c1 == 0xA0)
  elseif n == 3 then
    if c == 0xE3 then
      space = c1 == 0x80 and c2 == 0x80
    elseif c == 0xE2 and c1 == 0x80 then
      space = c2 <= 0x8A or c2 == 0xA8 or c2 == 0xA9 or c2 == 0xAF
    elseif c == 0xE2 and c1 == 0x81 then
      space = c2 == 0x9F
    elseif c == 0xE1 then
      space = c1 == 0x9A and c2 == 0x80
    end
  end
  return n, space
end

local function rule_of(rule)
  if rule == nil then return false, false end
  if type(rule) ~= "table" then error("the rule must be a table {inWord =, countSpaces =}", 3) end
  return rule.inWord and true or false, rule.countSpaces and true or false
end

-- Walks s counting as the rule does, stopping before the character that
-- would take the count past max (nil: never). Returns the bytes to keep —
-- all of s when it fits, else up to the end of the last character counted
-- (white space after it goes, as the server's util.TrimLength cuts; the C
-- side's aw_nlp_trim_length) — and the count.
local function walk(s, max, in_word, spaces)
  local i, n, count, inw, keep = 1, #s, 0, false, 0
  while i <= n do
    local len, sp = char_at(s, i)
    local add
    if in_word then add = (not sp and not inw) and 1 or 0 else add = (spaces or not sp) and 1 or 0 end
    if max and count + add > max then return keep, count end
    count, inw, i = count + add, not sp, i + len
    if spaces or not sp then keep = i - 1 end
  end
  return n, count
end

-- N.length(text [, rule]): the length the server counts: characters (not
-- bytes) without white space; rule = {countSpaces = true} counts it too,
-- {inWord = true} counts words.
function N.length(text, rule)
  check_text(text, "N.length")
  local w, sp = rule_of(rule)
  local _, c = walk(text, nil, w, sp)
  return c
end

-- N.truncate(text, max [, rule]): the longest start of text whose length is
-- at most max, cut between characters (never inside one).
function N.truncate(text, max, rule)
  check_text(text, "N.truncate")
  if type(max) ~= "number" then error("N.truncate: max must be a number", 2) end
  local w, sp = rule_of(rule)
  local b = walk(text, max < 0 and 0 or max, w, sp)
  return sub(text, 1, b)
end

-- N.fit(info, text): text cut to the rule info carries, as the server would
-- cut it (so nothing past it is lost by surprise): baseLength + remainLength
-- before the first @mention of another agent, mentionLength + remainLength
-- after it, maxLength for both. Line breaks become spaces. Outside an NLP
-- game (no rule), text as it is.
function N.fit(info, text)
  check_info(info, "N.fit")
  check_text(text, "N.fit")
  text = gsub(text, "[%c]", " ")
  local base, ml, max = info.baseLength, info.mentionLength, info.maxLength
  local remain = info.remainLength or 0
  if remain < 0 then remain = 0 end
  local daily = base ~= nil or info.remainLength ~= nil
  base = base or 0
  local before, mention, after = text, nil, nil
  if daily and ml and info.names then
    local at
    for a = 1, #info.statusMap do
      local nm = info.names[a]
      if a ~= info.agent and nm then
        local i = find(text, "@" .. nm, 1, true)
        if i and (not at or i < at) then at, mention = i, "@" .. nm end
      end
    end
    if at then
      before, after = sub(text, 1, at - 1), sub(text, at + #mention)
    else
      mention = nil
    end
  end
  if daily then before = N.truncate(before, base + remain) end
  if mention then after = N.truncate(after, ml + remain) end
  if max then
    local used = N.length(before)
    if used > max then
      before, mention = N.truncate(before, max), nil
    elseif mention then
      after = N.truncate(after, max - used)
    end
  end
  if mention then return before .. mention .. after end
  return before
end

-- Templates and the renderer --------------------------------------------------

local ROLE_WORDS = {
  en = {VILLAGER = "villager", SEER = "seer", MEDIUM = "medium", BODYGUARD = "bodyguard", WEREWOLF = "werewolf",
    POSSESSED = "possessed", ANY = "someone with a role"},
  ja = {VILLAGER = "村人", SEER = "占い師", MEDIUM = "霊媒師", BODYGUARD = "狩人", WEREWOLF = "人狼",
    POSSESSED = "狂人", ANY = "何らかの役職"},
}
local SPECIES_WORDS = {
  en = {HUMAN = "human", WEREWOLF = "a werewolf", ANY = "human or a werewolf"},
  ja = {HUMAN = "人間", WEREWOLF = "人狼", ANY = "人間か人狼"},
}
-- First-person templates; %1, %2 are the arguments in order (names, role
-- and species words already in the language).
local TEMPLATES = {
  en = {
    greet = "Hello everyone.",
    comingout = "I am the %1.",
    divined = "I divined %1: %2.",
    identified = "My result: %1 was %2.",
    estimate = "I think %1 is the %2.",
    vote = "I will vote for %1.",
    divination = "I will divine %1.",
    guard = "I will guard %1.",
    attack = "Let's attack %1.",
    request_vote = "Everyone, please vote for %1.",
    ask = "%1, what do you think?",
    agree = "I agree with %1.",
    disagree = "I disagree with %1.",
  },
  ja = {
    greet = "皆さん、よろしくお願いします。",
    comingout = "私は%1です。",
    divined = "%1を占ったら、%2でした。",
    identified = "%1は%2でした。",
    estimate = "%1は%2だと思います。",
    vote = "私は%1に投票します。",
    divination = "%1を占います。",
    guard = "%1を守ります。",
    attack = "%1を襲撃しよう。",
    request_vote = "皆さん、%1に投票してください。",
    ask = "%1はどう思いますか？",
    agree = "%1に賛成です。",
    disagree = "%1に反対です。",
  },
}

local function lang_of(info)
  local l = info.lang
  if l == "ja" then return "ja" end
  return "en"
end

-- N.template(lang, key): the template text ("I am the %1."), or nil.
function N.template(lang, key)
  local t = TEMPLATES[lang]
  return t and t[key]
end

-- N.role_word(info, role) and N.species_word(info, species): "seer"/"占い師",
-- "a werewolf"/"人狼" in the game's language.
function N.role_word(info, role)
  check_info(info, "N.role_word")
  return ROLE_WORDS[lang_of(info)][role] or tostring(role)
end

function N.species_word(info, species)
  check_info(info, "N.species_word")
  return SPECIES_WORDS[lang_of(info)][species] or tostring(species)
end

-- An argument of a template: an agent number becomes its name, a role or a
-- species its word, a string stays.
local function arg_text(info, v, role_first)
  if type(v) == "number" then return N.name(info, v) end
  local lang = lang_of(info)
  if role_first and ROLE_WORDS[lang][v] then return ROLE_WORDS[lang][v] end
  if SPECIES_WORDS[lang][v] then return SPECIES_WORDS[lang][v] end
  if ROLE_WORDS[lang][v] then return ROLE_WORDS[lang][v] end
  return tostring(v)
end

-- N.say(info, key, ...): the template key of the game's language filled in
-- (agents as names, roles and species as words) and fitted to the length
-- rule: N.say(info, "comingout", "SEER"), N.say(info, "divined", 3,
-- "WEREWOLF"). A key that is not a template is used as the template itself.
function N.say(info, key, ...)
  check_info(info, "N.say")
  if type(key) ~= "string" then error("N.say: key must be a string", 2) end
  local t = TEMPLATES[lang_of(info)][key] or key
  local args = {...}
  local out = gsub(t, "%%(%d)", function(d)
    local v = args[d + 0]
    if v == nil then return "" end
    return arg_text(info, v, key == "comingout" or key == "estimate")
  end)
  return N.fit(info, out)
end

-- N.render(info, sentence): a protocol sentence (its text, or a table of
-- aiwolf.protocol) in the game's language, with names: the speaker's own
-- COMINGOUT, DIVINED, IDENTIFIED, ESTIMATE, VOTE, DIVINATION, GUARD and
-- ATTACK in the first person (the templates above), anything else as
-- P.describe says it; "Skip" and "Over" stay as they are (the server knows
-- them). Fitted to the length rule. nil and a message for text that does
-- not parse.
function N.render(info, sentence)
  check_info(info, "N.render")
  local s = sentence
  if type(s) == "string" then
    if s == "Skip" or s == "Over" then return s end
    local err
    s, err = P.parse(s)
    if not s then return nil, err end
  elseif type(s) ~= "table" then
    error("N.render: expected a protocol sentence (text or table), got " .. tostring(sentence), 2)
  end
  local v = s.verb
  if v == "OVER" then return "Over" end
  if v == "SKIP" then return "Skip" end
  local me = info.agent
  local mine = s.subject == nil or s.subject == me
  if mine and type(s.target) == "number" then
    if v == "COMINGOUT" and s.target == me then return N.say(info, "comingout", s.role) end
    if v == "DIVINED" then return N.say(info, "divined", s.target, s.species) end
    if v == "IDENTIFIED" then return N.say(info, "identified", s.target, s.species) end
    if v == "ESTIMATE" then return N.say(info, "estimate", s.target, s.role) end
    if v == "VOTE" then return N.say(info, "vote", s.target) end
    if v == "DIVINATION" then return N.say(info, "divination", s.target) end
    if v == "GUARD" then return N.say(info, "guard", s.target) end
    if v == "ATTACK" then return N.say(info, "attack", s.target) end
  end
  local text = P.describe(s, lang_of(info), me)
  text = gsub(text, "Agent%[(%d%d)%]", function(d)
    local a = d + 0
    if info.names and info.names[a] then return info.names[a] end
  end)
  return N.fit(info, text)
end

-- Reading other agents' text ---------------------------------------------------

-- Positions of each agent's name in text: a list of {pos =, agent =} in
-- text order (a name inside a longer name counts once, for the longer).
local function occurrences(info, text)
  local out = {}
  local names = info.names or {}
  for a = 1, #info.statusMap do
    local forms = {names[a], format("Agent[%02d]", a)}
    for _, nm in ipairs(forms) do
      if nm and nm ~= "" then
        local i = 1
        while true do
          local s, e = find(text, nm, i, true)
          if not s then break end
          out[#out + 1] = {pos = s, last = e, agent = a}
          i = e + 1
        end
      end
    end
  end
  sort(out, function(x, y)
    if x.pos ~= y.pos then return x.pos < y.pos end
    return x.last > y.last
  end)
  local kept, upto = {}, 0
  for _, o in ipairs(out) do
    if o.pos > upto then
      kept[#kept + 1] = o
      upto = o.last
    end
  end
  return kept
end

-- The agents of occurrences(info, text) for which keep(o) holds (nil:
-- all), each once, in the order they first appear.
local function agents_in(info, text, keep)
  local out, seen = {}, {}
  for _, o in ipairs(occurrences(info, text)) do
    if not seen[o.agent] and (not keep or keep(o)) then
      seen[o.agent] = true
      out[#out + 1] = o.agent
    end
  end
  return out
end

-- N.names_in(info, text): the agents named in text, each once, in the order
-- they first appear.
function N.names_in(info, text)
  check_info(info, "N.names_in")
  check_text(text, "N.names_in")
  return agents_in(info, text)
end

-- N.mentions(info, text): the agents text addresses, "@Name" or ">>Name"
-- (the official sample agents' two forms), each once, in order.
function N.mentions(info, text)
  check_info(info, "N.mentions")
  check_text(text, "N.mentions")
  return agents_in(info, text, function(o)
    local p = o.pos
    return (p > 1 and sub(text, p - 1, p - 1) == "@") or (p > 2 and sub(text, p - 2, p - 1) == ">>")
  end)
end

-- Role words a claim may use, per role: English (matched in lower case) and
-- Japanese.
local CLAIM_EN = {
  {"SEER", {"seer", "fortune teller"}}, {"MEDIUM", {"medium"}}, {"BODYGUARD", {"bodyguard", "knight", "hunter"}},
  {"WEREWOLF", {"werewolf"}}, {"POSSESSED", {"possessed", "madman"}}, {"VILLAGER", {"villager"}},
}
local CLAIM_JA = {
  {"SEER", {"占い師"}}, {"MEDIUM", {"霊媒師", "霊能者"}}, {"BODYGUARD", {"狩人", "騎士"}},
  {"WEREWOLF", {"人狼"}}, {"POSSESSED", {"狂人"}}, {"VILLAGER", {"村人"}},
}
local FIRST_JA = {"私", "僕", "俺", "わたし", "ぼく", "おれ", "あたし", "うち", "自分"}

-- N.claim(info, text [, speaker]): the role the speaker claims in text, in
-- the simple forms: "I am the seer", "I'm a medium", "私は占い師です",
-- "占い師は私", "占い師CO" and the renderer's own "X comes out: X is a seer" /
-- "XはXが占い師だとカミングアウトする" (speaker: who said it, to match
-- those). nil when there is none.
function N.claim(info, text, speaker)
  check_info(info, "N.claim")
  check_text(text, "N.claim")
  local l = lower(text)
  for _, rw in ipairs(CLAIM_EN) do
    for _, w in ipairs(rw[2]) do
      for _, pre in ipairs({"i am the ", "i am a ", "i am an ", "i'm the ", "i'm a ", "i'm an ", "i am ", "i'm "}) do
        if find(l, pre .. w, 1, true) then return rw[1] end
      end
      if find(l, "co " .. w, 1, true) or find(l, "come out as " .. w, 1, true)
        or find(l, "come out as the " .. w, 1, true) or find(l, "come out as a " .. w, 1, true) then
        return rw[1]
      end
    end
  end
  for _, rw in ipairs(CLAIM_JA) do
    for _, w in ipairs(rw[2]) do
      for _, me in ipairs(FIRST_JA) do
        if find(text, me .. "は" .. w, 1, true) or find(text, me .. "が" .. w, 1, true)
          or find(text, w .. "は" .. me, 1, true) then
          return rw[1]
        end
      end
      if find(text, w .. "CO", 1, true) or find(text, w .. "ＣＯ", 1, true) then return rw[1] end
    end
  end
  if speaker then
    local nm = N.name(info, speaker)
    for _, rw in ipairs(CLAIM_EN) do
      if find(text, nm .. " comes out: " .. nm .. " is a " .. rw[2][1], 1, true) then return rw[1] end
    end
    for _, rw in ipairs(CLAIM_JA) do
      if find(text, nm .. "は" .. nm .. "が" .. rw[2][1] .. "だとカミングアウト", 1, true) then return rw[1] end
    end
  end
  return nil
end

local SPECIES_EN = {{"not a werewolf", "HUMAN"}, {"not werewolf", "HUMAN"}, {"werewolf", "WEREWOLF"},
  {"wolf", "WEREWOLF"}, {"human", "HUMAN"}, {"black", "WEREWOLF"}, {"white", "HUMAN"}}
local SPECIES_JA = {{"人狼ではな", "HUMAN"}, {"人狼じゃな", "HUMAN"}, {"人狼", "WEREWOLF"}, {"黒", "WEREWOLF"},
  {"人間", "HUMAN"}, {"白判定", "HUMAN"}, {"白で", "HUMAN"}, {"白だ", "HUMAN"}}

-- The first species word at or after byte i of text: its position and
-- species, or nil.
local function species_after(text, l, i)
  local best, sp
  for _, w in ipairs(SPECIES_EN) do
    local p = find(l, w[1], i, true)
    if p and (not best or p < best) then best, sp = p, w[2] end
  end
  for _, w in ipairs(SPECIES_JA) do
    local p = find(text, w[1], i, true)
    if p and (not best or p < best) then best, sp = p, w[2] end
  end
  return best, sp
end

-- N.results(info, text [, speaker]): the divination or medium results text
-- reports, in the simple forms ("I divined Kenji: a werewolf", "Kenji is
-- human (divined)", "ケンジを占ったら人狼でした", "ケンジは人間でした"): a list of
-- {target = agent, species = "HUMAN" | "WEREWOLF"} in text order. A text
-- must speak of a result (divine, result, identified, 占, 霊媒, 結果,
-- 判定, でした) to give any. The speaker's own name is skipped.
function N.results(info, text, speaker)
  check_info(info, "N.results")
  check_text(text, "N.results")
  local l = lower(text)
  local about = false
  for _, w in ipairs({"divin", "result", "identified", "medium"}) do
    if find(l, w, 1, true) then about = true end
  end
  for _, w in ipairs({"占", "霊媒", "霊能", "結果", "判定", "でした", "だった"}) do
    if find(text, w, 1, true) then about = true end
  end
  if not about then return {} end
  local occ = occurrences(info, text)
  local out = {}
  for k, o in ipairs(occ) do
    if o.agent ~= speaker then
      local p, sp = species_after(text, l, o.last + 1)
      local nextpos = occ[k + 1] and occ[k + 1].pos
      if p and (not nextpos or p < nextpos) then
        out[#out + 1] = {target = o.agent, species = sp}
      end
    end
  end
  return out
end

return N
